import { fileURLToPath } from 'node:url';
import { loadFixtureDirectory } from '@yourtool/conformance';
import { type ConformanceContext, describeAdapterConformance } from '@yourtool/conformance/vitest';
import { OPENAI_TOOL_ID_RULES, type ToolIdRules } from '@yourtool/core';
// The Chat Completions request shape is OpenAI's: reuse its inspector.
import { chatCompletionsWire } from '../../openai/test/wire.js';
import { roundTripCompatibleContent } from '../src/codec.js';
import {
  AzureOpenAIAdapter,
  MISTRAL_TOOL_ID_PATTERN,
  MistralAdapter,
  type OpenAICompatibleOptions,
  VllmAdapter,
} from '../src/index.js';

const fixtures = (dir: string) =>
  loadFixtureDirectory(fileURLToPath(new URL(dir, import.meta.url)));

const config = (context: ConformanceContext, options: OpenAICompatibleOptions = {}) => ({
  api_key: context.apiKey,
  base_url: context.baseUrl,
  max_retries: context.maxRetries,
  timeout_seconds: context.timeoutSeconds,
  idle_timeout_seconds: context.idleTimeoutSeconds,
  options: { ...options, ...context.options },
});
const runtime = (context: ConformanceContext) => ({ logger: context.logger, retry: context.retry });

// Mistral: nine-alphanumeric tool ids, `max_tokens`, no stream_options (usage rides on the last
// chunk), tool calls streamed whole (so their fragments cannot interleave), content as typed parts
// (Magistral's thinking), no refusal field.
const MISTRAL_RULES: ToolIdRules = { pattern: new RegExp(MISTRAL_TOOL_ID_PATTERN), maxLength: 9 };
describeAdapterConformance({
  name: 'openai-compatible (mistral preset)',
  model: 'mistral:mistral-large-latest',
  createAdapter: (context) => new MistralAdapter(config(context), runtime(context)),
  fixtures: fixtures('./fixtures-mistral'),
  wire: chatCompletionsWire,
  toolIdRules: MISTRAL_RULES,
  features: {
    wholeToolCalls: true,
    typedContentParts: true,
    refusal: 'none',
    toolNameWarnings: 'logged',
    callOptions: 'checked',
    configOptions: { known: 'include_usage' },
  },
  codec: {
    roundTrip: (content, map) => roundTripCompatibleContent(content, map, 'mistral', MISTRAL_RULES),
  },
  skip: {
    'usage-cached': 'Mistral reports no cached input tokens',
    'usage-cached-stream': 'Mistral reports no cached input tokens',
  },
  live: {
    env: 'MISTRAL_API_KEY',
    createAdapter: (apiKey) => new MistralAdapter({ api_key: apiKey }),
    model: 'mistral:mistral-small-latest',
  },
});

// vLLM serving a reasoning model: `reasoning` read as unsigned thinking, no key needed.
describeAdapterConformance({
  name: 'openai-compatible (vllm preset)',
  model: 'vllm:Qwen/Qwen3-8B',
  createAdapter: (context) =>
    new VllmAdapter(
      config(context, {
        models: {
          'Qwen/Qwen3-8B': {
            supports_tools: true,
            supports_images: true,
            supports_thinking: true,
            supports_structured_output: true,
            max_context_tokens: 40_960,
            max_output_tokens: 32_768,
          },
        },
      }),
      runtime(context),
    ),
  fixtures: fixtures('./fixtures-vllm'),
  wire: chatCompletionsWire,
  toolIdRules: OPENAI_TOOL_ID_RULES,
  // tool fragments keyed by index, as OpenAI's; a self-hosted server has no refusal to report
  features: {
    interleavedToolFragments: true,
    refusal: 'none',
    toolNameWarnings: 'logged',
    callOptions: 'checked',
    configOptions: { known: 'include_usage' },
  },
  codec: { roundTrip: (content, map) => roundTripCompatibleContent(content, map, 'vllm') },
});

// Azure OpenAI, deployments API: the SDK's AzureOpenAI client; OpenAI's wire format and model table.
describeAdapterConformance({
  name: 'openai-compatible (azure preset)',
  model: 'azure:gpt-4.1',
  createAdapter: (context) =>
    new AzureOpenAIAdapter(
      config(context, {
        azure: { api_version: '2024-10-21', deployments: { 'gpt-4.1': 'prod-gpt41' } },
      }),
      runtime(context),
    ),
  fixtures: {
    ...fixtures('../../openai/test/fixtures'),
    ...fixtures('../../openai/test/fixtures-gpt-4.1'),
  },
  wire: chatCompletionsWire,
  toolIdRules: OPENAI_TOOL_ID_RULES,
  // OpenAI's wire format: interleaving tool fragments, the refusal field, content_filter
  features: {
    interleavedToolFragments: true,
    toolNameWarnings: 'logged',
    callOptions: 'checked',
    configOptions: { known: 'include_usage' },
  },
  codec: { roundTrip: (content, map) => roundTripCompatibleContent(content, map, 'azure') },
});
