import type { AdapterFactory } from '@yourtool/router';
import { RuntimeSetupError } from './setup-error.js';

/** The adapter packages `createRuntime` finds by an adapter entry's `type`. */
export const KNOWN_ADAPTER_PACKAGES: Readonly<Record<string, { package: string; export: string }>> =
  {
    anthropic: { package: '@yourtool/anthropic', export: 'AnthropicAdapter' },
    // Claude on Google Vertex AI: its own provider key, so models read `vertex-anthropic:...`
    'vertex-anthropic': { package: '@yourtool/anthropic', export: 'VertexAnthropicAdapter' },
    bedrock: { package: '@yourtool/bedrock', export: 'BedrockAdapter' },
    google: { package: '@yourtool/google', export: 'GoogleAdapter' },
    openai: { package: '@yourtool/openai', export: 'OpenAIAdapter' },
    openrouter: { package: '@yourtool/openrouter', export: 'OpenRouterAdapter' },
    ollama: { package: '@yourtool/ollama', export: 'OllamaAdapter' },
    // Chat Completions servers: the generic adapter (models `openai-compatible:<name>`) and
    // presets, one type per provider key so models read `azure:...`, `groq:...`, `vllm:...`
    'openai-compatible': {
      package: '@yourtool/openai-compatible',
      export: 'OpenAICompatibleAdapter',
    },
    azure: { package: '@yourtool/openai-compatible', export: 'AzureOpenAIAdapter' },
    deepseek: { package: '@yourtool/openai-compatible', export: 'DeepSeekAdapter' },
    groq: { package: '@yourtool/openai-compatible', export: 'GroqAdapter' },
    mistral: { package: '@yourtool/openai-compatible', export: 'MistralAdapter' },
    vllm: { package: '@yourtool/openai-compatible', export: 'VllmAdapter' },
  };

/** The factory of a known adapter type, from its package (imported when a model uses it). */
export async function loadFactory(type: string): Promise<AdapterFactory> {
  const known = KNOWN_ADAPTER_PACKAGES[type];
  if (!known) {
    throw new RuntimeSetupError(
      'unknown_adapter_type',
      `no adapter for type "${type}": the known types are ${Object.keys(KNOWN_ADAPTER_PACKAGES).join(', ')}; pass a factory for it in the factories option`,
    );
  }
  let module: Record<string, unknown>;
  try {
    module = (await import(known.package)) as Record<string, unknown>;
  } catch (error) {
    throw new RuntimeSetupError(
      'adapter_package_missing',
      `models.yaml uses adapter type "${type}", which needs ${known.package}: install it (npm install ${known.package})`,
      { cause: error },
    );
  }
  const AdapterClass = module[known.export] as
    | (new (
        ...args: Parameters<AdapterFactory>
      ) => ReturnType<AdapterFactory>)
    | undefined;
  if (typeof AdapterClass !== 'function') {
    throw new RuntimeSetupError(
      'adapter_package_missing',
      `${known.package} does not export ${known.export}; is it a version this runtime supports?`,
    );
  }
  return (config, runtime) => new AdapterClass(config, runtime);
}
