import {
  type AdapterCapabilities,
  type AdapterConfigInput,
  AdapterOptionError,
} from '@yourtool/core';
import {
  ChatCompletionsAdapter,
  type ChatCompletionsCallContext,
  type ChatCompletionsClientOptions,
  type ChatCompletionsEncoding,
  type ChatCompletionsRuntimeOptions,
  type OpenAIResponseDecoding,
  type OpenAIStreamMapperOptions,
  openAIModelInfo,
  temperatureRefusal,
  UNKNOWN_OPENAI_MODEL,
} from '@yourtool/openai';
import OpenAI, { AzureOpenAI } from 'openai';
import { createReasoningDeltaMapper } from './codec/reasoning.js';
import { toCompatibleParams } from './codec/request.js';
import { fromCompatibleChatCompletion } from './codec/response.js';
import { CONSERVATIVE_CAPABILITIES, capabilitiesFromSpec } from './models.js';
import type {
  CompatibleModelSpec,
  OpenAICompatibleOptions,
  PresetName,
  ResolvedQuirks,
} from './options.js';
import { resolveQuirks } from './resolve.js';

/** Construction options of {@link OpenAICompatibleAdapter} besides the config. */
export type OpenAICompatibleRuntimeOptions = ChatCompletionsRuntimeOptions;

/** A config whose `options` are an {@link OpenAICompatibleOptions}. */
export type OpenAICompatibleConfig = Omit<AdapterConfigInput, 'options'> & {
  options?: OpenAICompatibleOptions;
};

/**
 * One adapter for every server that speaks OpenAI Chat Completions (vLLM, llama.cpp server, LM
 * Studio, Groq, xAI, DeepSeek, Together, Fireworks, Mistral, Azure OpenAI, ...), on the official
 * `openai` SDK and the `@yourtool/openai` codec. What differs between deployments is
 * configuration, not code: the provider key, base URL and headers, the models and what they can
 * do, and the wire quirks (see {@link OpenAICompatibleOptions}), optionally starting from a
 * preset.
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
export class OpenAICompatibleAdapter extends ChatCompletionsAdapter {
  /** Adapter name and provider key (`options.provider`, the preset's, or `openai-compatible`). */
  readonly name: string;
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
    const quirks = resolveQuirks(config.options ?? {});
    const baseUrl =
      config.base_url ?? process.env[quirks.baseUrlEnv] ?? quirks.defaultBaseUrl ?? undefined;
    if (!baseUrl) {
      // no preset URL, none configured: every call would fail, so the setup does instead
      throw new AdapterOptionError(
        quirks.provider,
        'base_url',
        `required: set base_url in the config or the ${quirks.baseUrlEnv} environment variable`,
      );
    }
    super(
      {
        name: quirks.provider,
        defaultModel: `${quirks.provider}:${quirks.defaultModel ?? 'default'}`,
        apiKeyEnv: quirks.apiKeyEnv,
        baseUrlEnv: quirks.baseUrlEnv,
        defaultBaseUrl: baseUrl,
        apiKey: quirks.requiresApiKey ? 'required' : 'optional',
      },
      config as AdapterConfigInput,
      runtime,
    );
    this.name = quirks.provider;
    this.quirks = quirks;
  }

  /** The model's spec from the `models` option (by wire name). */
  protected modelSpec(wireName: string): CompatibleModelSpec | undefined {
    return this.quirks.models[wireName];
  }

  /**
   * Capabilities from the `models` option over a conservative default; for Azure, OpenAI
   * models the option does not list take `@yourtool/openai`'s table.
   */
  protected baseCapabilities(wireName: string): AdapterCapabilities {
    const spec = this.modelSpec(wireName);
    const openAI = this.#openAIInfo(wireName);
    return capabilitiesFromSpec(spec, openAI?.capabilities ?? CONSERVATIVE_CAPABILITIES);
  }

  /** Encodes a request with the openai codec and this deployment's quirks. */
  protected encodeChat(context: ChatCompletionsCallContext): ChatCompletionsEncoding {
    const { request, wireName, logger } = context;
    const spec = this.modelSpec(wireName);
    const openAI = this.#openAIInfo(wireName);
    const refusal =
      spec?.temperature === false
        ? `${wireName} does not accept temperature`
        : spec?.temperature === true || !openAI
          ? null
          : temperatureRefusal(openAI, wireName, openAI.defaultReasoningEffort);
    const encoding = toCompatibleParams(request, {
      provider: this.name,
      wireName,
      bodyModel: this.quirks.azure?.deployments?.[wireName] ?? wireName,
      capabilities: this.capabilitiesFor(request.model),
      toolIdMap: context.toolIdMap,
      historyMemo: context.historyMemo,
      logger,
      maxTokensField: this.quirks.maxTokensField,
      ...(this.quirks.toolIdRules ? { toolIdRules: this.quirks.toolIdRules } : {}),
      stopSequences: spec?.stop_sequences ?? openAI?.stopSequences ?? 'sent',
      temperatureRefusal: refusal,
      reasoningField: this.quirks.reasoningField,
      reasoningReplay: this.quirks.reasoningReplay,
      reasoningRequiredWithToolCalls: this.quirks.reasoningRequiredWithToolCalls,
      requestOrder: this.quirks.requestOrder,
      unsupportedParameters: this.quirks.unsupportedParameters,
      extraBody: this.quirks.extraBody,
    });
    return {
      ...encoding,
      includeUsage:
        this.quirks.includeUsage && !this.quirks.unsupportedParameters.includes('stream_options'),
    };
  }

  /** Decodes a reply with its reasoning as unsigned thinking. */
  protected override decodeChat(
    completion: OpenAI.ChatCompletion,
    encoding: ChatCompletionsEncoding,
    context: ChatCompletionsCallContext,
  ): OpenAIResponseDecoding {
    return fromCompatibleChatCompletion(completion, context.toolIdMap, {
      provider: this.name,
      reasoningField: this.quirks.reasoningField,
      logger: context.logger,
      stopSequencesSent: encoding.stopSequencesSent,
      emulatedStopSequences: encoding.emulatedStopSequences,
    });
  }

  /** Streams reasoning deltas as `thinking.delta`. */
  protected override streamOptions(): Partial<OpenAIStreamMapperOptions> {
    return this.quirks.reasoningField === 'none'
      ? {}
      : { onDelta: createReasoningDeltaMapper(this.quirks.reasoningField) };
  }

  /**
   * The SDK client: `AzureOpenAI` (api-version query, `/openai/deployments/{name}` paths,
   * `api-key` header) when `azure.api_version` is set; for Azure's v1 API the plain client with
   * the key in `api-key`; otherwise the plain client.
   */
  protected override createClient(options: ChatCompletionsClientOptions): OpenAI {
    const azure = this.quirks.azure;
    if (!azure) return new OpenAI(options);
    if (azure.api_version) {
      return new AzureOpenAI({
        ...(typeof options.apiKey === 'string' ? { apiKey: options.apiKey } : {}),
        endpoint: options.baseURL ?? undefined,
        maxRetries: options.maxRetries,
        timeout: options.timeout,
        defaultHeaders: options.defaultHeaders,
        logger: options.logger,
        logLevel: options.logLevel,
        ...(options.fetch ? { fetch: options.fetch } : {}),
        apiVersion: azure.api_version,
      });
    }
    return new OpenAI({
      ...options,
      defaultHeaders: {
        ...(options.defaultHeaders as Record<string, string | null> | undefined),
        ...(typeof options.apiKey === 'string' ? { 'api-key': options.apiKey } : {}),
        authorization: null,
      },
    });
  }

  #openAIInfo(wireName: string) {
    if (!this.quirks.openAIModels) return undefined;
    const info = openAIModelInfo(wireName);
    return info === UNKNOWN_OPENAI_MODEL ? undefined : info;
  }
}

function withPreset(preset: PresetName, config: OpenAICompatibleConfig): OpenAICompatibleConfig {
  return { ...config, options: { ...config.options, preset } };
}

/** {@link OpenAICompatibleAdapter} with the `groq` preset (models.yaml `type: groq`). */
export class GroqAdapter extends OpenAICompatibleAdapter {
  /** Creates a Groq adapter; `options` may override any of the preset's. */
  constructor(config: OpenAICompatibleConfig = {}, runtime: OpenAICompatibleRuntimeOptions = {}) {
    super(withPreset('groq', config), runtime);
  }
}

/** {@link OpenAICompatibleAdapter} with the `mistral` preset (models.yaml `type: mistral`). */
export class MistralAdapter extends OpenAICompatibleAdapter {
  /** Creates a Mistral adapter; `options` may override any of the preset's. */
  constructor(config: OpenAICompatibleConfig = {}, runtime: OpenAICompatibleRuntimeOptions = {}) {
    super(withPreset('mistral', config), runtime);
  }
}

/** {@link OpenAICompatibleAdapter} with the `vllm` preset (models.yaml `type: vllm`). */
export class VllmAdapter extends OpenAICompatibleAdapter {
  /** Creates a vLLM adapter; `options` may override any of the preset's. */
  constructor(config: OpenAICompatibleConfig = {}, runtime: OpenAICompatibleRuntimeOptions = {}) {
    super(withPreset('vllm', config), runtime);
  }
}

/** {@link OpenAICompatibleAdapter} with the `azure` preset (models.yaml `type: azure`). */
export class AzureOpenAIAdapter extends OpenAICompatibleAdapter {
  /** Creates an Azure OpenAI adapter; `options` may override any of the preset's. */
  constructor(config: OpenAICompatibleConfig = {}, runtime: OpenAICompatibleRuntimeOptions = {}) {
    super(withPreset('azure', config), runtime);
  }
}

/** {@link OpenAICompatibleAdapter} with the `deepseek` preset (models.yaml `type: deepseek`). */
export class DeepSeekAdapter extends OpenAICompatibleAdapter {
  /** Creates a DeepSeek adapter; `options` may override any of the preset's. */
  constructor(config: OpenAICompatibleConfig = {}, runtime: OpenAICompatibleRuntimeOptions = {}) {
    super(withPreset('deepseek', config), runtime);
  }
}
