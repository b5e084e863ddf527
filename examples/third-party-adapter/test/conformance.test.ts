import { renderFixtures } from '@yourtool/conformance';
import { describeAdapterConformance } from '@yourtool/conformance/vitest';
import { ACME_TOOL_ID_RULES, AcmeAdapter, roundTripAcmeContent } from '../src/index.js';
import { acmeRenderer } from './renderer.js';
import { acmeWire } from './wire.js';

describeAdapterConformance({
  name: 'acme',
  model: 'acme:small',
  createAdapter: ({
    baseUrl,
    apiKey,
    maxRetries,
    logger,
    retry,
    timeoutSeconds,
    idleTimeoutSeconds,
  }) =>
    new AcmeAdapter(
      {
        api_key: apiKey,
        base_url: baseUrl,
        max_retries: maxRetries,
        timeout_seconds: timeoutSeconds,
        idle_timeout_seconds: idleTimeoutSeconds,
      },
      { logger, retry },
    ),
  // every fixture generated from the suite's expected results, in the Acme wire format
  fixtures: renderFixtures(acmeRenderer),
  wire: acmeWire,
  toolIdRules: ACME_TOOL_ID_RULES,
  codec: { roundTrip: roundTripAcmeContent },
  // the API answers `stop` for a stop sequence too
  features: { stopSequenceHit: 'unreported' },
  live: {
    env: 'ACME_API_KEY',
    createAdapter: (apiKey) => new AcmeAdapter({ api_key: apiKey }),
  },
});
