import { type AdapterCapabilities, type AdapterConfigInput, type AdapterError, type CallRunnerOptions, AuthError, type CallOptions, type CanonicalRequest, type CanonicalRequestInput, type CanonicalResponse, type ContentBlock, type Logger, parseModelId, type StreamEvent, type TokenUsage, ToolIdMap } from '@yourtool/core';
import {
  AdapterBase,
  estimateBlockTokens,
  estimateRequestTokens,
  redactError,
  redactSecrets,
  runCompleteCall,
  runStreamCall,
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
  type OpenAIStreamItem,
  type OpenAIStreamMapperOptions,
  withStreamEnd,
} from './codec/stream.js';
import { createToolNameDecoder, withCanonicalToolNames } from './codec/tool-names.js';

/** Construction options of a Chat Completions adapter besides the config (core's, unchanged). */
export type ChatCompletionsRuntimeOptions = CallRunnerOptions;

/** What distinguishes one Chat Completions provider from another at the transport level. */
export interface ChatCompletionsProvider {
  /** Adapter name and provider key (`openai`, `openrouter`). */
  name: string;
  /** Canonical id of the model whose capabilities `adapter.capabilities` reports. */
  defaultModel: string;
  /** Environment variable the API key is read from when the config has none. */
  apiKeyEnv: string;
  /** Environment variable the base URL is read from when the config has none. */
  baseUrlEnv: string;
  /** Base URL when neither the config nor the environment names one. */
  defaultBaseUrl: string;
  /** Headers sent with every request, before `extra_headers`. */
  defaultHeaders?: Record<string, string>;
  /** `organization` and `project` headers (OpenAI only). */
  organization?: string | null;
  project?: string | null;
  /**
   * `required` (default): a call without an API key fails with `AuthError` before anything is
   * sent. `optional`: servers that take none (a local vLLM, llama.cpp or LM Studio) are called
   * without an `Authorization` header when no key is configured.
   */
  apiKey?: 'required' | 'optional';
}

/** What the SDK client is built from (see {@link ChatCompletionsAdapter.createClient}). */
export type ChatCompletionsClientOptions = NonNullable<ConstructorParameters<typeof OpenAI>[0]>;

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

/** What a subclass gets to encode and decode one call. */
export interface ChatCompletionsCallContext {
  request: CanonicalRequest;
  wireName: string;
  toolIdMap: ToolIdMap;
  logger: Logger;
  options: CallOptions;
}

/**
 * The machinery every Chat Completions adapter shares, on the official `openai` SDK (its own
 * retries off; core's bounded retry on): client construction, `complete` through core's
 * `runCompleteCall` (with `served_model` from the reply's `model` and the decoded `refusal`),
 * `stream` through `runStreamCall` with usage requested (unless the encoding says the server
 * refuses `stream_options`) and tool calls ending at the finish (`toolCallsEndAtFinish`: their
 * argument fragments may interleave), cancellation,
 * capability lookup with overrides, token estimates and error mapping. Subclasses
 * ({@link OpenAIAdapter}, `OpenRouterAdapter`) bring the model table and the encoding.
 */
export abstract class ChatCompletionsAdapter extends AdapterBase {
  readonly #provider: ChatCompletionsProvider;
  #client: OpenAI | undefined;

  /** Validates the config; the SDK client is created on the first call. */
  protected constructor(
    provider: ChatCompletionsProvider,
    config: AdapterConfigInput,
    runtime: ChatCompletionsRuntimeOptions,
  ) {
    super(provider.name, config, runtime);
    this.#provider = provider;
  }

  protected defaultModel(): string {
    return this.#provider.defaultModel;
  }

  /** Encodes one request (history, parameters, provider fields). */
  protected abstract encode(context: ChatCompletionsCallContext): ChatCompletionsEncoding;

  /** Decodes a non-streaming reply. */
  protected decode(
    completion: OpenAI.ChatCompletion,
    encoding: ChatCompletionsEncoding,
    context: ChatCompletionsCallContext,
  ): OpenAIResponseDecoding {
    return fromOpenAIChatCompletion(completion, context.toolIdMap, {
      provider: this.name,
      modelProvider: parseModelId(context.request.model).provider,
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

  /** A non-streaming Chat Completions call. */
  complete(request: CanonicalRequestInput, options: CallOptions = {}): Promise<CanonicalResponse> {
    return runCompleteCall(
      this.#setup(),
      request,
      options,
      async ({ request: req, signal, logger }) => {
        const context = this.#context(req, logger, options, options.toolIdMap ?? new ToolIdMap());
        const encoding = this.encode(context);
        const started = Date.now();
        const completion = await this.#sdk().chat.completions.create(
          { ...encoding.params, ...encoding.extraBody, stream: false },
          { signal },
        );
        const decoded = this.decode(completion, encoding, context);
        // a tool called under a name the encoder derived is the canonical tool (decision 0140)
        const content = withCanonicalToolNames(decoded.content, createToolNameDecoder(req));
        // whatever the subclass decoded, the served model is what the reply names
        const served =
          decoded.served_model ?? servedModelId(parseModelId(req.model).provider, completion.model);
        return {
          request_id: req.request_id,
          model: req.model,
          provider: this.name,
          content,
          stop_reason: decoded.stop_reason,
          usage: decoded.usage ?? estimatedUsage(this.name, req, content, logger),
          latency_ms: Date.now() - started,
          provider_raw: decoded.provider_raw,
          ...(served ? { served_model: served } : {}),
          ...(decoded.refusal ? { refusal: decoded.refusal } : {}),
        };
      },
    );
  }

  /**
   * A streaming Chat Completions call, as canonical events. Usage is requested
   * (`stream_options.include_usage`) unless the encoding sets `includeUsage: false`.
   */
  stream(request: CanonicalRequestInput, options: CallOptions = {}): AsyncIterable<StreamEvent> {
    const toolIdMap = options.toolIdMap ?? new ToolIdMap();
    let map: ReturnType<typeof createOpenAIStreamMapper> | undefined;
    return runStreamCall<OpenAIStreamItem>(this.#setup(), request, options, {
      open: async ({ request: req, signal, logger }) => {
        const context = this.#context(req, logger, options, toolIdMap);
        const encoding = this.encode(context);
        map = createOpenAIStreamMapper({
          provider: this.name,
          modelProvider: parseModelId(req.model).provider,
          toolIdMap,
          logger,
          stopSequencesSent: encoding.stopSequencesSent,
          emulatedStopSequences: encoding.emulatedStopSequences,
          estimateUsage: (content) => estimatedCounts(req, content),
          toolName: createToolNameDecoder(req),
          ...this.streamOptions(encoding, context),
        });
        const stream = await this.#sdk().chat.completions.create(
          {
            ...encoding.params,
            ...encoding.extraBody,
            stream: true as const,
            ...(encoding.includeUsage === false ? {} : { stream_options: { include_usage: true } }),
          },
          { signal },
        );
        return withStreamEnd(stream);
      },
      onChunk: (chunk, builder) => (map ? map(chunk, builder) : []),
      // an empty 200 stream is an error before the first event, not message.start + error
      startsMessage: (chunk) => !isOpenAIStreamEnd(chunk),
      // fragments of parallel tool calls may interleave (keyed by index): calls end at the finish
      toolCallsEndAtFinish: true,
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
    if (this.#apiKey() || this.#provider.apiKey === 'optional') return null;
    return noApiKeyReason(this.name, this.#provider.apiKeyEnv);
  }

  #apiKey(): string | undefined {
    return this.config.api_key ?? process.env[this.#provider.apiKeyEnv] ?? undefined;
  }

  /** What is redacted from errors and SDK log lines: the API key and custom header values. */
  #secrets(): Array<string | undefined> {
    return [this.#apiKey(), ...Object.values(this.config.extra_headers)];
  }

  #sdk(): OpenAI {
    if (this.#client) return this.#client;
    const apiKey = this.#apiKey();
    const keyless = !apiKey && this.#provider.apiKey === 'optional';
    if (!apiKey && !keyless) {
      throw new AuthError(noApiKeyReason(this.name, this.#provider.apiKeyEnv), {
        provider: this.name,
      });
    }
    this.#client = this.createClient({
      // the SDK insists on a key; a keyless server gets none: the header is removed below
      apiKey: apiKey ?? 'no-key',
      baseURL:
        this.config.base_url ??
        process.env[this.#provider.baseUrlEnv] ??
        this.#provider.defaultBaseUrl,
      organization: this.#provider.organization ?? null,
      project: this.#provider.project ?? null,
      maxRetries: 0,
      timeout: this.config.timeout_seconds * 1000,
      defaultHeaders: {
        ...this.#provider.defaultHeaders,
        ...this.config.extra_headers,
        ...(keyless ? { authorization: null } : {}),
      },
      // The SDK's own warnings go to the adapter's logger (redacted), never to the console.
      logger: sdkLogger(this.logger, this.name, () => this.#secrets()),
      logLevel: 'warn',
      ...(this.runtime.fetch ? { fetch: this.runtime.fetch } : {}),
    });
    return this.#client;
  }

  #context(
    request: CanonicalRequest,
    logger: Logger,
    options: CallOptions,
    toolIdMap: ToolIdMap,
  ): ChatCompletionsCallContext {
    return { request, wireName: this.checkRequest(request), toolIdMap, logger, options };
  }

  #setup() {
    return this.callSetup(
      (error, request): AdapterError =>
        toOpenAIAdapterError(error, request.request_id, {
          provider: this.name,
          apiKey: this.#apiKey(),
          secrets: Object.values(this.config.extra_headers),
          ...this.errorOptions(),
        }),
    );
  }
}

/** Why an adapter without a key cannot call: names where a key is looked for, never a value. */
export function noApiKeyReason(adapter: string, apiKeyEnv: string): string {
  return `${adapter}: no API key (set api_key in the config or the ${apiKeyEnv} environment variable)`;
}

/** The SDK's `logger` option: each line to `logger` as `sdk_log`, secrets redacted. */
export function sdkLogger(
  logger: Logger,
  adapter: string,
  secrets: () => ReadonlyArray<string | undefined>,
) {
  const write =
    (level: 'error' | 'warn' | 'info' | 'debug') =>
    (message: string, ...details: unknown[]): void => {
      const list = secrets();
      const entry: Record<string, unknown> = {
        event: 'sdk_log',
        adapter,
        sdk_level: level,
        ...(details.length > 0 ? { details: details.map((d) => redactError(d, list)) } : {}),
      };
      const text = redactSecrets(String(message), list);
      (level === 'warn' ? logger.warn : (logger[level] ?? logger.warn)).call(logger, entry, text);
    };
  return { error: write('error'), warn: write('warn'), info: write('info'), debug: write('debug') };
}

/** Local token counts for a call the provider sent no usage for: core's heuristic. */
export function estimatedCounts(
  request: CanonicalRequest,
  content: readonly ContentBlock[],
): Omit<TokenUsage, 'estimated'> {
  return {
    input_tokens: estimateRequestTokens(request.messages, request.tools, request.system_prompt),
    output_tokens: content.reduce((sum, block) => sum + estimateBlockTokens(block), 0),
    cached_input_tokens: 0,
    cache_creation_input_tokens: 0,
  };
}

/** {@link estimatedCounts} marked `estimated`, with a `usage_estimated` WARN saying so. */
export function estimatedUsage(
  provider: string,
  request: CanonicalRequest,
  content: readonly ContentBlock[],
  logger: Logger,
): TokenUsage {
  logger.warn(
    { event: 'usage_estimated', adapter: provider, request_id: request.request_id },
    'the provider sent no usage; token counts are local estimates',
  );
  return { ...estimatedCounts(request, content), estimated: true };
}
