import type {
  AdapterCapabilities,
  AdapterConfigInput,
  AdapterError,
  CallRunnerOptions,
  CanonicalRequest,
} from '@yourtool/core';
import {
  type AdapterBase,
  type ChunkMapper,
  type DecodedReply,
  HistoryMemo,
  type StreamCallSpec,
  WireAdapter,
  type WireAttempt,
  type WireCall,
} from '@yourtool/core/adapter';
import OpenAI from 'openai';
import { type ToOpenAIAdapterErrorOptions, toOpenAIAdapterError } from './codec/errors.js';
import type { OpenAIChatEncoding } from './codec/request.js';
import {
  fromOpenAIChatCompletion,
  type OpenAIResponseDecoding,
  servedModelId,
} from './codec/response.js';
import {
  createOpenAIStreamMapper,
  isOpenAIStreamEnd,
  OPENAI_STREAM_END,
  type OpenAIStreamItem,
  type OpenAIStreamMapperOptions,
} from './codec/stream.js';
import { openAIStreamBody } from './codec/stream-body.js';
import { createToolNameDecoder, withCanonicalToolNames } from './codec/tool-names.js';
import {
  estimatedCounts,
  LazyOpenAIClient,
  type OpenAIClientOptions,
  type OpenAIClientSettings,
} from './sdk-client.js';

/** Construction options of a Chat Completions adapter besides the config (core's, unchanged). */
export type ChatCompletionsRuntimeOptions = CallRunnerOptions;

/** What distinguishes one Chat Completions provider from another at the transport level. */
export interface ChatCompletionsProvider extends OpenAIClientSettings {
  /** Canonical id of the model whose capabilities `adapter.capabilities` reports. */
  defaultModel: string;
}

/** What the SDK client is built from (see {@link ChatCompletionsAdapter.createClient}). */
export type ChatCompletionsClientOptions = OpenAIClientOptions;

/** One encoded request: the wire parameters plus body fields the SDK types do not know. */
export interface ChatCompletionsEncoding extends OpenAIChatEncoding {
  /** Provider fields merged into the body (OpenRouter's `reasoning`, `provider`, ...). */
  extraBody?: Record<string, unknown>;
  /**
   * Whether a stream asks for usage with `stream_options.include_usage` (default true). Servers
   * that refuse the field (or send usage unasked) set it to false.
   */
  includeUsage?: boolean;
}

/** What a subclass gets to encode and decode one call: core's call plus the model's wire name. */
export interface ChatCompletionsCallContext extends WireCall {
  /** The requested model's wire name. */
  wireName: string;
  /** What `prepareHistory` remembers between the adapter's requests: pass it to the codec. */
  historyMemo: HistoryMemo;
}

/**
 * The {@link WireAdapter} every Chat Completions adapter shares, on the official `openai` SDK (its
 * own retries off; core's bounded retry on). Core's template runs the call (deadlines, retries,
 * cancellation, the stream contract, response assembly); this class supplies the Chat
 * Completions wire: `chat.completions.create` with and without `stream` (usage requested unless
 * the encoding says the server refuses `stream_options`), the reply decoded with tool names read
 * back as canonical and `served_model` from the reply's `model`, the stream mapper (tool calls end
 * at the finish: their argument fragments may interleave), and the SDK's errors mapped.
 *
 * A subclass ({@link OpenAIChatCompletionsAdapter}, `OpenRouterAdapter`, `OpenAICompatibleAdapter`)
 * brings the model table and {@link encodeChat}; it may refine {@link decodeChat},
 * {@link streamOptions}, {@link errorOptions} and {@link createClient}.
 */
export abstract class ChatCompletionsAdapter extends WireAdapter<
  ChatCompletionsEncoding,
  OpenAI.ChatCompletion,
  OpenAIStreamItem
> {
  readonly #provider: ChatCompletionsProvider;
  readonly #client: LazyOpenAIClient;
  /** What `prepareHistory` remembers between this adapter's requests (decision 0165). */
  readonly #historyMemo = new HistoryMemo();

  /** Validates the config; the SDK client is created on the first call. */
  protected constructor(
    provider: ChatCompletionsProvider,
    config: AdapterConfigInput,
    runtime: ChatCompletionsRuntimeOptions,
  ) {
    super(provider.name, config, runtime);
    this.#provider = provider;
    this.#client = new LazyOpenAIClient(
      provider,
      { config: this.config, runtime: this.runtime, logger: this.logger },
      (options) => this.createClient(options),
    );
  }

  protected defaultModel(): string {
    return this.#provider.defaultModel;
  }

  /** Encodes one request (history, parameters, provider fields). */
  protected abstract encodeChat(context: ChatCompletionsCallContext): ChatCompletionsEncoding;

  /** Decodes a non-streaming reply (tool names are read back as canonical after this). */
  protected decodeChat(
    completion: OpenAI.ChatCompletion,
    encoding: ChatCompletionsEncoding,
    context: ChatCompletionsCallContext,
  ): OpenAIResponseDecoding {
    return fromOpenAIChatCompletion(completion, context.toolIdMap, {
      provider: this.name,
      modelProvider: context.modelProvider,
      logger: context.logger,
      stopSequencesSent: encoding.stopSequencesSent,
      emulatedStopSequences: encoding.emulatedStopSequences,
    });
  }

  /** Stream mapper options beyond the common ones (OpenRouter adds its reasoning). */
  protected streamOptions(
    _encoding: ChatCompletionsEncoding,
    _context: ChatCompletionsCallContext,
  ): Partial<OpenAIStreamMapperOptions> {
    return {};
  }

  /** Error mapping options beyond provider and key (OpenRouter brings its classifier). */
  protected errorOptions(): Partial<ToOpenAIAdapterErrorOptions> {
    return {};
  }

  /**
   * Builds the SDK client from the options this class worked out (key, base URL, headers, no SDK
   * retries, timeout, logger, fetch). Override to build another client of the SDK, e.g. its
   * `AzureOpenAI` (api-version query, deployment paths, `api-key` header).
   */
  protected createClient(options: ChatCompletionsClientOptions): OpenAI {
    return new OpenAI(options);
  }

  /** Core's call → the subclass's context (with the wire name) → {@link encodeChat}. */
  protected encode(call: WireCall): ChatCompletionsEncoding {
    return this.encodeChat(this.#context(call));
  }

  /** A non-streaming `chat.completions.create`. */
  protected send(encoding: ChatCompletionsEncoding, attempt: WireAttempt) {
    return this.#client
      .get()
      .chat.completions.create(
        { ...encoding.params, ...encoding.extraBody, stream: false },
        { signal: attempt.signal },
      );
  }

  /**
   * A streaming `chat.completions.create`, usage requested unless the encoding says not to: the
   * SDK sends it and checks the status; core reads the SSE body a network read at a time and
   * the end marker follows the last chunk (decision 0147).
   */
  protected async open(encoding: ChatCompletionsEncoding, attempt: WireAttempt) {
    const response = await this.#client
      .get()
      .chat.completions.create(
        {
          ...encoding.params,
          ...encoding.extraBody,
          stream: true as const,
          ...(encoding.includeUsage === false ? {} : { stream_options: { include_usage: true } }),
        },
        { signal: attempt.signal },
      )
      .asResponse();
    return openAIStreamBody<OpenAIStreamItem>(response, () => OPENAI_STREAM_END);
  }

  /**
   * {@link decodeChat}, then what holds for every reply: a tool called under a name the encoder
   * derived is the canonical tool (decision 0140), and the served model is what the reply names.
   */
  protected decode(
    completion: OpenAI.ChatCompletion,
    encoding: ChatCompletionsEncoding,
    call: WireCall,
  ): DecodedReply {
    const decoded = this.decodeChat(completion, encoding, this.#context(call));
    return {
      ...decoded,
      content: withCanonicalToolNames(decoded.content, createToolNameDecoder(call.request)),
      served_model: decoded.served_model ?? servedModelId(call.modelProvider, completion.model),
    };
  }

  /** The Chat Completions stream mapper, with the subclass's {@link streamOptions}. */
  protected chunkMapper(
    encoding: ChatCompletionsEncoding,
    call: WireCall,
  ): ChunkMapper<OpenAIStreamItem> {
    const { request } = call;
    return createOpenAIStreamMapper({
      provider: this.name,
      modelProvider: call.modelProvider,
      toolIdMap: call.toolIdMap,
      logger: call.logger,
      stopSequencesSent: encoding.stopSequencesSent,
      emulatedStopSequences: encoding.emulatedStopSequences,
      estimateUsage: (content) => estimatedCounts(request, content),
      toolName: createToolNameDecoder(request),
      ...this.streamOptions(encoding, this.#context(call)),
    });
  }

  /**
   * An empty 200 stream is an error before the first event (the end marker starts no message);
   * fragments of parallel tool calls may interleave (keyed by index), so calls end at the finish.
   */
  protected override streamTraits(): Pick<
    StreamCallSpec<OpenAIStreamItem>,
    'startsMessage' | 'toolCallsEndAtFinish'
  > {
    return { startsMessage: (chunk) => !isOpenAIStreamEnd(chunk), toolCallsEndAtFinish: true };
  }

  /** The SDK's errors (and OpenAI-style error bodies) as `AdapterError`s, secrets redacted. */
  protected toAdapterError(error: unknown, request: CanonicalRequest): AdapterError {
    return toOpenAIAdapterError(error, request.request_id, {
      provider: this.name,
      apiKey: this.#client.apiKey(),
      secrets: Object.values(this.config.extra_headers),
      ...this.errorOptions(),
    });
  }

  /**
   * Input-token estimate without calling the API: core's heuristic, within ±5% of OpenAI's
   * o200k encoding on a mixed 1,000-message history (decision 0044).
   */
  override estimateInputTokens(...args: Parameters<AdapterBase['estimateInputTokens']>): number {
    return super.estimateInputTokens(...args);
  }

  /** Capabilities for a canonical id, overrides applied (what the encoder must respect). */
  protected capabilitiesOf(request: CanonicalRequest): AdapterCapabilities {
    return this.capabilitiesFor(request.model);
  }

  /**
   * Why no call can be made as configured: no API key in the config or in the provider's
   * environment variable (named, never quoted), unless the server takes none. `null` when ready.
   */
  setupProblem(): string | null {
    return this.#client.setupProblem();
  }

  /** Where calls go (telemetry's `server.address`): the client's base URL. */
  protected override serverUrl(): string | undefined {
    return this.#client.baseUrl();
  }

  #context(call: WireCall): ChatCompletionsCallContext {
    const wireName = this.wireName(call.request.model);
    return { ...call, wireName, historyMemo: this.#historyMemo };
  }
}
