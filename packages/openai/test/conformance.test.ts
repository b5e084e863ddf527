import { fileURLToPath } from 'node:url';
import { loadFixtureDirectory } from '@yourtool/conformance';
import { describeAdapterConformance } from '@yourtool/conformance/vitest';
import { OPENAI_TOOL_ID_RULES } from '@yourtool/core';
import { roundTripOpenAIContent } from '../src/codec.js';
import { OpenAIAdapter } from '../src/index.js';
import { chatCompletionsWire } from './wire.js';

const fixtures = loadFixtureDirectory(fileURLToPath(new URL('./fixtures', import.meta.url)));

const common = {
  name: 'openai',
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
        ...(options ? { options } : {}),
      },
      { logger, retry },
    ),
  wire: chatCompletionsWire,
  toolIdRules: OPENAI_TOOL_ID_RULES,
  codec: { roundTrip: roundTripOpenAIContent },
} satisfies Partial<Parameters<typeof describeAdapterConformance>[0]>;

// Chat Completions keys tool argument fragments by call index, so parallel calls may interleave;
// content may come as typed parts when OPENAI_BASE_URL points at a server that sends them.
const chatFeatures = {
  interleavedToolFragments: true,
  typedContentParts: true,
  toolNameWarnings: 'logged',
  callOptions: 'checked',
  configOptions: { known: 'reasoning_effort' },
} as const;

// GPT-5: a reasoning model that refuses temperature and stop sequences.
describeAdapterConformance({
  ...common,
  model: 'openai:gpt-5',
  fixtures,
  features: { ...chatFeatures, temperature: 'dropped', stopSequences: 'emulated' },
  live: {
    env: 'OPENAI_API_KEY',
    createAdapter: (apiKey) => new OpenAIAdapter({ api_key: apiKey }),
    model: 'openai:gpt-5-mini',
  },
});

// GPT-4.1: temperature and stop sequences go on the wire. Same fixtures, except the sampling
// reply, which the provider itself cut at the stop sequence.
describeAdapterConformance({
  ...common,
  model: 'openai:gpt-4.1',
  fixtures: {
    ...fixtures,
    ...loadFixtureDirectory(fileURLToPath(new URL('./fixtures-gpt-4.1', import.meta.url))),
  },
  features: { ...chatFeatures, temperature: 'sent', stopSequences: 'sent' },
});
