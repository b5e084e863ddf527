import { WireAdapter } from '@yourtool/core/adapter';
import type { OpenAIStreamItem } from '@yourtool/openai/codec';
import type { ChatCompletionsEncoding, ChatCompletionsRuntimeOptions } from '@yourtool/openai/wire';
import type OpenAI from 'openai';
import { type OpenAICompatibleConfig, openAICompatibleAssembly } from './compatible-parts.js';
import type { PresetName, ResolvedQuirks } from './options.js';

export type { OpenAICompatibleConfig } from './compatible-parts.js';

/** Construction options of {@link OpenAICompatibleAdapter} besides the config. */
export type OpenAICompatibleRuntimeOptions = ChatCompletionsRuntimeOptions;

/**
 * One adapter for every server that speaks OpenAI Chat Completions (vLLM, llama.cpp server, LM
 * Studio, Groq, xAI, DeepSeek, Together, Fireworks, Mistral, Azure OpenAI, ...), on the official
 * `openai` SDK and the `@yourtool/openai` codec. What differs between deployments is
 * configuration, not code: the provider key, base URL and headers, the models and what they can
 * do, and the wire quirks (see {@link OpenAICompatibleOptions}), optionally starting from a
 * preset. A `WireAdapter` assembled by `openAICompatibleAssembly`: `@yourtool/openai`'s Chat
 * Completions parts with the quirks as their rules.
 *
 * ```ts
 * const groq = new OpenAICompatibleAdapter({ options: { preset: 'groq' } }); // GROQ_API_KEY
 * const local = new OpenAICompatibleAdapter({
 *   base_url: 'http://localhost:8000/v1',
 *   options: {
 *     provider: 'vllm',
 *     requires_api_key: false,
 *     models: { 'Qwen/Qwen3-8B': { supports_tools: true, max_context_tokens: 32_768 } },
 *   },
 * });
 * ```
 */
export class OpenAICompatibleAdapter extends WireAdapter<
  ChatCompletionsEncoding,
  OpenAI.ChatCompletion,
  OpenAIStreamItem
> {
  /** The resolved quirks (options over preset over defaults). */
  readonly quirks: Readonly<ResolvedQuirks>;

  /**
   * Creates an adapter. Its options are checked once, here, against
   * `OpenAICompatibleOptionsSchema` (over the preset's).
   * @throws AdapterOptionError naming an unknown preset, an option of the wrong type or value
   * (`options.<field>`), or a missing base URL (`base_url`: none in the config, in the
   * `base_url_env` variable, or from the preset).
   */
  constructor(config: OpenAICompatibleConfig = {}, runtime: OpenAICompatibleRuntimeOptions = {}) {
    const assembly = openAICompatibleAssembly(config);
    super(assembly.provider, assembly.config, runtime, assembly.assemble);
    this.quirks = assembly.quirks;
  }
}

/** The config with a preset named (the config's options may override any of the preset's). */
function withPreset(preset: PresetName, config: OpenAICompatibleConfig): OpenAICompatibleConfig {
  return { ...config, options: { ...config.options, preset } };
}

// The preset adapters: the same assembly with a preset named, each its own class so
// `new GroqAdapter(...)` and models.yaml's `type: groq` keep working; data, not subclasses.

/** The OpenAI-compatible adapter with the `groq` preset (models.yaml `type: groq`). */
export class GroqAdapter extends WireAdapter<
  ChatCompletionsEncoding,
  OpenAI.ChatCompletion,
  OpenAIStreamItem
> {
  /** The resolved quirks (options over preset over defaults). */
  readonly quirks: Readonly<ResolvedQuirks>;

  /** Creates a Groq adapter; `options` may override any of the preset's. */
  constructor(config: OpenAICompatibleConfig = {}, runtime: OpenAICompatibleRuntimeOptions = {}) {
    const assembly = openAICompatibleAssembly(withPreset('groq', config));
    super(assembly.provider, assembly.config, runtime, assembly.assemble);
    this.quirks = assembly.quirks;
  }
}

/** The OpenAI-compatible adapter with the `mistral` preset (models.yaml `type: mistral`). */
export class MistralAdapter extends WireAdapter<
  ChatCompletionsEncoding,
  OpenAI.ChatCompletion,
  OpenAIStreamItem
> {
  /** The resolved quirks (options over preset over defaults). */
  readonly quirks: Readonly<ResolvedQuirks>;

  /** Creates a Mistral adapter; `options` may override any of the preset's. */
  constructor(config: OpenAICompatibleConfig = {}, runtime: OpenAICompatibleRuntimeOptions = {}) {
    const assembly = openAICompatibleAssembly(withPreset('mistral', config));
    super(assembly.provider, assembly.config, runtime, assembly.assemble);
    this.quirks = assembly.quirks;
  }
}

/** The OpenAI-compatible adapter with the `vllm` preset (models.yaml `type: vllm`). */
export class VllmAdapter extends WireAdapter<
  ChatCompletionsEncoding,
  OpenAI.ChatCompletion,
  OpenAIStreamItem
> {
  /** The resolved quirks (options over preset over defaults). */
  readonly quirks: Readonly<ResolvedQuirks>;

  /** Creates a vLLM adapter; `options` may override any of the preset's. */
  constructor(config: OpenAICompatibleConfig = {}, runtime: OpenAICompatibleRuntimeOptions = {}) {
    const assembly = openAICompatibleAssembly(withPreset('vllm', config));
    super(assembly.provider, assembly.config, runtime, assembly.assemble);
    this.quirks = assembly.quirks;
  }
}

/** The OpenAI-compatible adapter with the `azure` preset (models.yaml `type: azure`). */
export class AzureOpenAIAdapter extends WireAdapter<
  ChatCompletionsEncoding,
  OpenAI.ChatCompletion,
  OpenAIStreamItem
> {
  /** The resolved quirks (options over preset over defaults). */
  readonly quirks: Readonly<ResolvedQuirks>;

  /** Creates an Azure OpenAI adapter; `options` may override any of the preset's. */
  constructor(config: OpenAICompatibleConfig = {}, runtime: OpenAICompatibleRuntimeOptions = {}) {
    const assembly = openAICompatibleAssembly(withPreset('azure', config));
    super(assembly.provider, assembly.config, runtime, assembly.assemble);
    this.quirks = assembly.quirks;
  }
}

/** The OpenAI-compatible adapter with the `deepseek` preset (models.yaml `type: deepseek`). */
export class DeepSeekAdapter extends WireAdapter<
  ChatCompletionsEncoding,
  OpenAI.ChatCompletion,
  OpenAIStreamItem
> {
  /** The resolved quirks (options over preset over defaults). */
  readonly quirks: Readonly<ResolvedQuirks>;

  /** Creates a DeepSeek adapter; `options` may override any of the preset's. */
  constructor(config: OpenAICompatibleConfig = {}, runtime: OpenAICompatibleRuntimeOptions = {}) {
    const assembly = openAICompatibleAssembly(withPreset('deepseek', config));
    super(assembly.provider, assembly.config, runtime, assembly.assemble);
    this.quirks = assembly.quirks;
  }
}
