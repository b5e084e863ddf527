import { fileURLToPath } from 'node:url';
import { loadFixtureDirectory } from '@yourtool/conformance';
import { describeAdapterConformance } from '@yourtool/conformance/vitest';
import { OPENAI_TOOL_ID_RULES } from '@yourtool/core';
// The Chat Completions request shape is the same as OpenAI's: reuse its inspector.
import { chatCompletionsWire } from '../../openai/test/wire.js';
import { roundTripOpenRouterContent } from '../src/codec.js';
import { OpenRouterAdapter } from '../src/index.js';

// Claude through OpenRouter: reasoning comes back as signed reasoning.text and
// reasoning.encrypted details, and goes back as reasoning_details.
describeAdapterConformance({
  name: 'openrouter',
  model: 'openrouter:anthropic/claude-sonnet-4.6',
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
    new OpenRouterAdapter(
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
  fixtures: loadFixtureDirectory(fileURLToPath(new URL('./fixtures', import.meta.url))),
  wire: chatCompletionsWire,
  toolIdRules: OPENAI_TOOL_ID_RULES,
  features: {
    signedThinking: true,
    redactedThinking: true,
    temperature: 'sent',
    // the openai Chat Completions stream mapper, with tool calls ending at the finish
    interleavedToolFragments: true,
    // the openai codec's content decoding: OpenRouter passes Mistral's typed parts through
    typedContentParts: true,
    toolNameWarnings: 'logged',
    callOptions: 'checked',
    configOptions: { known: 'app_title' },
  },
  codec: { roundTrip: roundTripOpenRouterContent },
  live: {
    env: 'OPENROUTER_API_KEY',
    createAdapter: (apiKey) => new OpenRouterAdapter({ api_key: apiKey }),
    model: 'openrouter:anthropic/claude-haiku-4.5',
  },
});
