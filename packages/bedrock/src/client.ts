import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import {
  BedrockRuntimeClient,
  type BedrockRuntimeClientConfig,
} from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { AdapterContext } from '@yourtool/core/adapter';
import type { BedrockDefaults } from './options.js';
import { bedrockSdkLogger } from './sdk-logger.js';

/** What the client is built from besides the adapter's context. */
export interface BedrockClientSettings {
  /** The parsed `options` (region, profile, HTTP version). */
  defaults: BedrockDefaults;
  /** What the SDK logger redacts (read at each line: environment variables may change). */
  secrets: () => ReadonlyArray<string | null | undefined>;
}

/**
 * The HTTP/1.1 handler: keep-alive agents whose socket pool is not capped (Node's default
 * `maxSockets` is unlimited, but the SDK's handler caps its own agents at 50, which would queue
 * the 51st concurrent stream of a process behind the others).
 */
function http1Handler(): NodeHttpHandler {
  return new NodeHttpHandler({
    httpAgent: new HttpAgent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY }),
    httpsAgent: new HttpsAgent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY }),
  });
}

/**
 * The Bedrock Runtime client of one adapter, from its validated config:
 *
 * - `api_key` → a Bedrock API key sent as `Authorization: Bearer` (`token` with
 *   `authSchemePreference: ['httpBearerAuth']`); without one the SDK's own default chain runs
 *   (`AWS_BEARER_TOKEN_BEDROCK`, then environment keys, the shared config and SSO profile named by
 *   `options.profile` or `AWS_PROFILE`, web identity, container and instance roles);
 * - `base_url` → `endpoint`; `options.region` → `region` (else the SDK reads `AWS_REGION` or the
 *   profile's `region`);
 * - `maxAttempts: 1`: core's bounded retry is the only one;
 * - no handler timeouts: `timeout_seconds` and `idle_timeout_seconds` are core's deadlines, which
 *   abort the call through the signal the transport passes to `client.send`;
 * - `options.http_version` `"2"` → the SDK's default HTTP/2 handler (one session per call, no
 *   pool cap), `"1.1"` → `NodeHttpHandler` with an uncapped socket pool;
 * - `extra_headers` are set on every request;
 * - the SDK's logger writes to the adapter's logger, redacted, never to the console.
 */
export function createBedrockClient(
  context: AdapterContext,
  { defaults, secrets }: BedrockClientSettings,
): BedrockRuntimeClient {
  const { config } = context;
  const apiKey = config.api_key ?? undefined;
  const settings: BedrockRuntimeClientConfig = {
    maxAttempts: 1,
    logger: bedrockSdkLogger(context.logger, secrets),
    ...(defaults.region ? { region: defaults.region } : {}),
    ...(defaults.profile ? { profile: defaults.profile } : {}),
    ...(config.base_url ? { endpoint: config.base_url } : {}),
    ...(apiKey ? { token: { token: apiKey }, authSchemePreference: ['httpBearerAuth'] } : {}),
    ...(defaults.httpVersion === '1.1' ? { requestHandler: http1Handler() } : {}),
  };
  const client = new BedrockRuntimeClient(settings);
  const headers = Object.entries(config.extra_headers);
  if (headers.length > 0) {
    client.middlewareStack.add(
      (next) => async (args) => {
        const request = args.request as { headers?: Record<string, string> };
        if (request.headers) for (const [name, value] of headers) request.headers[name] = value;
        return next(args);
      },
      // before signing, so SigV4 covers the headers the caller added
      { step: 'build', name: 'yourtoolExtraHeaders' },
    );
  }
  return client;
}
