import { type AdapterCapabilities, type AdapterConfigInput, type CallOptions, type CanonicalRequestInput, type CanonicalResponse, InvalidRequestError, type StreamEvent } from '@yourtool/core';
import {
  ChatCompletionsAdapter,
  type ChatCompletionsCallContext,
  type ChatCompletionsEncoding,
  type ChatCompletionsRuntimeOptions,
} from './chat-adapter.js';
import { OPENAI, toOpenAIChatParams } from './codec/request.js';
import {
  type OpenAIReasoningEffort,
  type OpenAIReasoningSummary,
  openAIModelInfo,
  openAIResponsesModelInfo,
  temperatureRefusal,
} from './models.js';
import { OpenAIResponsesAdapter } from './responses/adapter.js';

/** The model whose capabilities `adapter.capabilities` reports. */
export const DEFAULT_OPENAI_MODEL = 'openai:gpt-5';

/**
 * Which OpenAI API an {@link OpenAIAdapter} calls: `chat_completions` (`POST /chat/completions`,
 * the default) or `responses` (`POST /responses`, which returns reasoning that can be replayed;
 * decision 0126).
 */
export type OpenAIApi = 'chat_completions' | 'responses';

/** OpenAI options read from `AdapterConfig.options` (defaults for every call). */
export interface OpenAIConfigOptions {
  /**
   * The API this adapter calls. Default `chat_completions`. `responses` serves every call
   * through {@link OpenAIResponsesAdapter}: reasoning models then declare `supports_thinking`
   * and their reasoning survives a tool loop and a model swap and back. In models.yaml, two
   * adapter entries of `type: openai` (one with `options: { api: responses }`) let each model
   * pick its API.
   */
  api?: OpenAIApi;
  /**
   * Responses API only: default `reasoning.summary` (`auto`, `concise`, `detailed`) for models
   * that reason. Unset: no summaries, reasoning comes back encrypted only.
   */
  reasoning_summary?: OpenAIReasoningSummary;
  /** `OpenAI-Organization` header. */
  organization?: string;
  /** `OpenAI-Project` header. */
  project?: string;
  /**
   * Default `reasoning_effort` for models that reason (per call:
   * `providerOptions.openai.reasoning_effort`). Unset: the model's own default.
   */
  reasoning_effort?: OpenAIReasoningEffort;
  /**
   * Send `output_schema` with `strict: true` when it meets the strict rules (default true);
   * `false` always sends it as guidance only.
   */
  strict_structured_output?: boolean;
}

/** Per-call OpenAI options (`CallOptions.providerOptions.openai`). */
export interface OpenAICallOptions {
  /** `reasoning_effort` for this call. */
  reasoning_effort?: OpenAIReasoningEffort;
  /** Responses API only: `reasoning.summary` for this call. */
  reasoning_summary?: OpenAIReasoningSummary;
}

/** Construction options of {@link OpenAIAdapter} besides the config. */
export type OpenAIRuntimeOptions = ChatCompletionsRuntimeOptions;

/**
 * The OpenAI adapter, on the official `openai` SDK (its own retries off; core's bounded retry
 * on). It calls Chat Completions unless `options.api` is `responses`, in which case every call
 * goes through an {@link OpenAIResponsesAdapter} built from the same config.
 *
 * ```ts
 * const gpt = new OpenAIAdapter({ api_key: process.env.OPENAI_API_KEY });
 * const reply = await gpt.complete({ request_id: newRequestId(), model: 'openai:gpt-5', messages, max_output_tokens: 1024 });
 * ```
 */
export class OpenAIAdapter extends ChatCompletionsAdapter {
  /** Adapter name and provider key. */
  readonly name = OPENAI;
  /** The Responses transport, when `options.api` is `responses`. */
  readonly #responses: OpenAIResponsesAdapter | undefined;

  /**
   * Creates an adapter. `api_key` defaults to `OPENAI_API_KEY` and `base_url` to
   * `OPENAI_BASE_URL` (else `https://api.openai.com/v1`). An `options.api` other than
   * `chat_completions` or `responses` is an `InvalidRequestError`.
   */
  constructor(config: AdapterConfigInput = {}, runtime: OpenAIRuntimeOptions = {}) {
    const options = (config.options ?? {}) as OpenAIConfigOptions;
    const api = options.api ?? 'chat_completions';
    if (api !== 'chat_completions' && api !== 'responses') {
      throw new InvalidRequestError(
        `invalid OpenAI adapter config: options.api: expected "chat_completions" or "responses", got ${JSON.stringify(api)}`,
        { provider: OPENAI },
      );
    }
    super(
      {
        name: OPENAI,
        defaultModel: DEFAULT_OPENAI_MODEL,
        apiKeyEnv: 'OPENAI_API_KEY',
        baseUrlEnv: 'OPENAI_BASE_URL',
        defaultBaseUrl: 'https://api.openai.com/v1',
        organization: options.organization ?? null,
        project: options.project ?? null,
      },
      config,
      runtime,
    );
    this.#responses = api === 'responses' ? new OpenAIResponsesAdapter(config, runtime) : undefined;
  }

  /** The API this adapter calls (`options.api`). */
  get api(): OpenAIApi {
    return this.#responses ? 'responses' : 'chat_completions';
  }

  /**
   * Capabilities from the GPT model table (unknown models get conservative ones), as the
   * configured API serves them: through the Responses API, models that reason support thinking.
   */
  protected baseCapabilities(wireName: string): AdapterCapabilities {
    return this.#responses
      ? openAIResponsesModelInfo(wireName).capabilities
      : openAIModelInfo(wireName).capabilities;
  }

  /** A non-streaming call through the configured API. */
  override complete(
    request: CanonicalRequestInput,
    options: CallOptions = {},
  ): Promise<CanonicalResponse> {
    return this.#responses
      ? this.#responses.complete(request, options)
      : super.complete(request, options);
  }

  /** A streaming call through the configured API, as canonical events. */
  override stream(
    request: CanonicalRequestInput,
    options: CallOptions = {},
  ): AsyncIterable<StreamEvent> {
    return this.#responses
      ? this.#responses.stream(request, options)
      : super.stream(request, options);
  }

  /** Cancels an in-flight call of either transport; `true` if one was running. */
  override async cancel(request_id: string): Promise<boolean> {
    const viaResponses = (await this.#responses?.cancel(request_id)) ?? false;
    return (await super.cancel(request_id)) || viaResponses;
  }

  /** Cancels in-flight calls and refuses further ones. */
  override async close(): Promise<void> {
    await this.#responses?.close();
    await super.close();
  }

  /**
   * Encodes a request for a GPT model: temperature left out (WARN) where the model refuses it,
   * stop sequences emulated where it refuses `stop`, `reasoning_effort` only for models that
   * reason.
   */
  protected encode(context: ChatCompletionsCallContext): ChatCompletionsEncoding {
    const { request, wireName, logger } = context;
    const info = openAIModelInfo(wireName);
    const defaults = this.configOptions<OpenAIConfigOptions>();
    const perCall = this.callOptions<OpenAICallOptions>(context.options);
    const requested = perCall.reasoning_effort ?? defaults.reasoning_effort ?? null;
    let reasoningEffort: OpenAIReasoningEffort | null = null;
    if (requested !== null && !info.reasoning) {
      logger.warn(
        {
          event: 'parameter_dropped',
          adapter: OPENAI,
          request_id: request.request_id,
          parameter: 'reasoning_effort',
        },
        `reasoning_effort was not sent: ${wireName} does not reason`,
      );
    } else {
      reasoningEffort = requested;
    }
    return toOpenAIChatParams(request, {
      provider: OPENAI,
      wireName,
      capabilities: this.capabilitiesFor(request.model),
      toolIdMap: context.toolIdMap,
      logger,
      temperatureRefusal: temperatureRefusal(
        info,
        wireName,
        reasoningEffort ?? info.defaultReasoningEffort,
      ),
      stopSequences: info.stopSequences,
      reasoningEffort,
      strictStructuredOutput: defaults.strict_structured_output ?? true,
    });
  }
}
