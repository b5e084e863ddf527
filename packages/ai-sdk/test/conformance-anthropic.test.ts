import { fileURLToPath } from 'node:url';
import { createAnthropic } from '@ai-sdk/anthropic';
import { loadFixtureDirectory } from '@yourtool/conformance';
import { describeAdapterConformance } from '@yourtool/conformance/vitest';
import { ANTHROPIC_TOOL_ID_RULES } from '@yourtool/core';
// The Anthropic package's inspector and recorded replies: the AI SDK model speaks the same wire.
import { anthropicWire } from '../../anthropic/test/wire.js';
import { AiSdkAdapter } from '../src/index.js';

const fixtures = loadFixtureDirectory(
  fileURLToPath(new URL('../../anthropic/test/fixtures', import.meta.url)),
);

describeAdapterConformance({
  name: 'aisdk-anthropic',
  model: 'aisdk-anthropic:claude-sonnet-4-6',
  createAdapter: ({
    baseUrl,
    apiKey,
    maxRetries,
    logger,
    retry,
    timeoutSeconds,
    idleTimeoutSeconds,
  }) =>
    new AiSdkAdapter(createAnthropic({ apiKey, baseURL: `${baseUrl}/v1` })('claude-sonnet-4-6'), {
      name: 'aisdk-anthropic',
      config: {
        api_key: apiKey,
        max_retries: maxRetries,
        timeout_seconds: timeoutSeconds,
        idle_timeout_seconds: idleTimeoutSeconds,
      },
      runtime: { logger, retry },
      capabilities: { supports_thinking: true, supports_structured_output: true },
    }),
  fixtures,
  wire: anthropicWire,
  toolIdRules: ANTHROPIC_TOOL_ID_RULES,
  alternatingRoles: true,
  features: {
    signedThinking: true,
    redactedThinking: true,
    temperature: 'sent',
    toolNameWarnings: 'unlogged',
    callOptions: 'none',
    configOptions: 'none',
  },
  codec: { roundTrip: (content) => content },
});
