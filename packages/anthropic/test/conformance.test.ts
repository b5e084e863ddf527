import { fileURLToPath } from 'node:url';
import { loadFixtureDirectory } from '@yourtool/conformance';
import { describeAdapterConformance } from '@yourtool/conformance/vitest';
import { ANTHROPIC_TOOL_ID_RULES } from '@yourtool/core';
import { roundTripAnthropicContent } from '../src/codec.js';
import { AnthropicAdapter } from '../src/index.js';
import { anthropicWire } from './wire.js';

describeAdapterConformance({
  name: 'anthropic',
  model: 'anthropic:claude-sonnet-4-6',
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
    new AnthropicAdapter(
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
  wire: anthropicWire,
  toolIdRules: ANTHROPIC_TOOL_ID_RULES,
  alternatingRoles: true,
  features: {
    signedThinking: true,
    redactedThinking: true,
    temperature: 'dropped',
    toolNameWarnings: 'logged',
    callOptions: 'checked',
    configOptions: { known: 'prompt_caching' },
  },
  codec: { roundTrip: roundTripAnthropicContent },
  live: {
    env: 'ANTHROPIC_API_KEY',
    createAdapter: (apiKey) => new AnthropicAdapter({ api_key: apiKey }),
    model: 'anthropic:claude-haiku-4-5',
  },
});
