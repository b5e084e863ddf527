import { fileURLToPath } from 'node:url';
import { loadFixtureDirectory } from '@yourtool/conformance';
import { describeAdapterConformance } from '@yourtool/conformance/vitest';
import { OLLAMA_TOOL_ID_RULES, roundTripOllamaContent } from '../src/codec.js';
import { OllamaAdapter } from '../src/index.js';
import { ollamaWire } from './wire.js';

/**
 * The model the scenarios run against, with the capabilities `/api/show` reports for it
 * (completion, vision, tools, thinking). Detection is off so each scenario makes exactly the
 * requests it scripts; detection itself is tested in adapter.test.ts against recorded
 * `/api/show` replies.
 */
const MODEL = 'ollama:qwen3-vl:8b';
const CAPABILITIES = {
  supports_tools: true,
  supports_parallel_tool_calls: true,
  supports_images: true,
  supports_thinking: true,
  accepted_image_media_types: ['image/png', 'image/jpeg'],
};

describeAdapterConformance({
  name: 'ollama',
  model: MODEL,
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
    new OllamaAdapter(
      {
        api_key: apiKey,
        base_url: baseUrl,
        max_retries: maxRetries,
        timeout_seconds: timeoutSeconds,
        idle_timeout_seconds: idleTimeoutSeconds,
        options: { detect_capabilities: false, ...options },
      },
      { logger, retry, capabilityOverrides: { [MODEL]: CAPABILITIES } },
    ),
  fixtures: loadFixtureDirectory(fileURLToPath(new URL('./fixtures', import.meta.url))),
  wire: ollamaWire,
  toolIdRules: OLLAMA_TOOL_ID_RULES,
  wireToolIds: false,
  alternatingRoles: false,
  features: {
    toolChoice: 'downgraded',
    signedThinking: false,
    redactedThinking: false,
    temperature: 'sent',
    wholeToolCalls: true,
    urlImages: 'dropped',
    stopSequenceHit: 'unreported',
    // Ollama has no refusal signal: a model that declines ends with done_reason "stop".
    refusal: 'none',
    toolNameWarnings: 'logged',
    callOptions: 'checked',
    configOptions: { known: 'keep_alive' },
  },
  codec: { roundTrip: roundTripOllamaContent },
  skip: {
    'usage-cached':
      'Ollama reports no cache reads: it reuses its KV cache silently, so cached_input_tokens is always 0 (decision 0055)',
    'usage-cached-stream':
      'Ollama reports no cache reads: it reuses its KV cache silently, so cached_input_tokens is always 0 (decision 0055)',
  },
});
