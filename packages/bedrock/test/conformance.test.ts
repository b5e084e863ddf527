import { fileURLToPath } from 'node:url';
import { loadFixtureDirectory } from '@yourtool/conformance';
import { describeAdapterConformance } from '@yourtool/conformance/vitest';
import { roundTripBedrockContent } from '../src/codec.js';
import { BEDROCK_TOOL_ID_RULES } from '../src/families.js';
import { BedrockAdapter } from '../src/index.js';
import { bedrockWire } from './wire.js';

/**
 * The adapter under the shared conformance suite, through the real SDK. The suite's loopback
 * server speaks HTTP/1.1, so the adapter is configured for it (`http_version: "1.1"`); the
 * default HTTP/2 handler is exercised by the package's own tests (transport, adapter).
 */
describeAdapterConformance({
  name: 'bedrock',
  model: 'bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0',
  createAdapter: ({
    baseUrl,
    apiKey,
    maxRetries,
    logger,
    retry,
    timeoutSeconds,
    idleTimeoutSeconds,
    options,
  }) =>
    new BedrockAdapter(
      {
        api_key: apiKey,
        base_url: baseUrl,
        max_retries: maxRetries,
        timeout_seconds: timeoutSeconds,
        idle_timeout_seconds: idleTimeoutSeconds,
        options: { region: 'us-east-1', http_version: '1.1', ...options },
      },
      { logger, retry },
    ),
  fixtures: loadFixtureDirectory(fileURLToPath(new URL('./fixtures/conformance', import.meta.url))),
  wire: bedrockWire,
  toolIdRules: BEDROCK_TOOL_ID_RULES,
  alternatingRoles: true,
  features: {
    signedThinking: true,
    // Converse carries redacted reasoning as bytes, kept canonically as their base64; the
    // suite's redacted data is not base64, so its round trip is checked in the codec and wire
    // fixture tests instead (redacted-thinking fixtures of test/fixtures/wire)
    redactedThinking: false,
    // Converse takes image bytes (or S3 locations), never URLs
    urlImages: 'dropped',
    toolNameWarnings: 'logged',
    callOptions: 'checked',
    configOptions: { known: 'prompt_caching' },
  },
  codec: { roundTrip: roundTripBedrockContent },
  skip: {
    'served-model': 'Converse replies do not name the model that answered',
    'served-model-stream': 'ConverseStream events do not name the model that answered',
  },
  live: {
    env: 'AWS_BEARER_TOKEN_BEDROCK',
    createAdapter: (apiKey) =>
      new BedrockAdapter({
        api_key: apiKey,
        options: { region: process.env.AWS_REGION ?? 'us-east-1' },
      }),
    model: 'bedrock:us.anthropic.claude-haiku-4-5-20251001-v1:0',
  },
});
