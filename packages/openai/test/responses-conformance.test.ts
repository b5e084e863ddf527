import { fileURLToPath } from 'node:url';
import { loadFixtureDirectory } from '@yourtool/conformance';
import { describeAdapterConformance } from '@yourtool/conformance/vitest';
import { OPENAI_RESPONSES_TOOL_ID_RULES, roundTripOpenAIResponsesContent } from '../src/codec.js';
import { OpenAIAdapter, OpenAIResponsesAdapter } from '../src/index.js';
import { responsesWire } from './responses-wire.js';

const fixtures = loadFixtureDirectory(
  fileURLToPath(new URL('./fixtures-responses', import.meta.url)),
);

const common = {
  name: 'openai-responses',
  wire: responsesWire,
  toolIdRules: OPENAI_RESPONSES_TOOL_ID_RULES,
  codec: { roundTrip: roundTripOpenAIResponsesContent },
  fixtures,
  // every stream event names its item (output_index, item_id), so argument fragments of two
  // function calls can interleave; the adapter folds them in (toolCallsEndAtFinish)
  features: {
    interleavedToolFragments: true,
    toolNameWarnings: 'logged',
    callOptions: 'checked',
    configOptions: { known: 'reasoning_effort' },
  },
} satisfies Partial<Parameters<typeof describeAdapterConformance>[0]>;

// GPT-5 on the Responses API: reasoning comes back as summaries signed with their encrypted
// content, and as encrypted-only items (redacted thinking); temperature is refused and the API
// has no stop parameter, so stop sequences are emulated.
describeAdapterConformance({
  ...common,
  model: 'openai:gpt-5',
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
    new OpenAIResponsesAdapter(
      {
        api_key: apiKey,
        base_url: baseUrl,
        max_retries: maxRetries,
        timeout_seconds: timeoutSeconds,
        idle_timeout_seconds: idleTimeoutSeconds,
        options: { reasoning_summary: 'auto', ...options },
      },
      { logger, retry },
    ),
  features: {
    ...common.features,
    signedThinking: true,
    redactedThinking: true,
    temperature: 'dropped',
    stopSequences: 'emulated',
  },
  live: {
    env: 'OPENAI_API_KEY',
    createAdapter: (apiKey) => new OpenAIResponsesAdapter({ api_key: apiKey }),
    model: 'openai:gpt-5-mini',
  },
});

// GPT-4.1 through OpenAIAdapter with `options.api: "responses"` (what a models.yaml entry
// configures): temperature goes on the wire, stop sequences are still emulated, no thinking.
describeAdapterConformance({
  ...common,
  name: 'openai (api: responses)',
  model: 'openai:gpt-4.1',
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
    new OpenAIAdapter(
      {
        api_key: apiKey,
        base_url: baseUrl,
        max_retries: maxRetries,
        timeout_seconds: timeoutSeconds,
        idle_timeout_seconds: idleTimeoutSeconds,
        options: { api: 'responses', ...options },
      },
      { logger, retry },
    ),
  features: { ...common.features, temperature: 'sent', stopSequences: 'emulated' },
});
