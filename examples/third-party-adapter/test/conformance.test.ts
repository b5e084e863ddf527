import { fileURLToPath } from 'node:url';
import { loadFixtureDirectory, renderFixtures } from '@yourtool/conformance';
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
  // fixtures generated from the suite's expected results, in the Acme wire format, plus the
  // hand-recorded edge replies (an empty reply at the limit, a foreign tool name, a served model)
  fixtures: {
    ...renderFixtures(acmeRenderer),
    ...loadFixtureDirectory(fileURLToPath(new URL('./fixtures', import.meta.url))),
  },
  wire: acmeWire,
  toolIdRules: ACME_TOOL_ID_RULES,
  codec: { roundTrip: roundTripAcmeContent },
  // the API answers `stop` for a stop sequence too
  // and has no way to say it refused
  features: { stopSequenceHit: 'unreported', refusal: 'none' },
  live: {
    env: 'ACME_API_KEY',
    createAdapter: (apiKey) => new AcmeAdapter({ api_key: apiKey }),
  },
});
