import { type AdapterCapabilities, type AdapterConfigInput, type AdapterError, type CallOptions, type CanonicalRequest, type CanonicalRequestInput, type CanonicalResponse, type Logger, type Message, type StreamEvent, type TokenUsage, type ToolDefinition, ToolIdMap } from '@yourtool/core';
import {
  AdapterBase,
  requestToolNames,
  runCompleteCall,
  runStreamCall,
} from '@yourtool/core/adapter';
import type { ChatResponse } from 'ollama';
import {
  createOllamaCallTransport,
  DEFAULT_OLLAMA_HOST,
  type OllamaCallTransport,
  type OllamaTransportSettings,
} from './client.js';
import { toOllamaAdapterError } from './codec/errors.js';
import { OLLAMA, type OllamaChatParams, toOllamaChatRequest } from './codec/request.js';
import { fromOllamaChatResponse } from './codec/response.js';
import { createOllamaStreamMapper } from './codec/stream.js';
import { ollamaCredentialProblem } from './credentials.js';
import {
  normalizeOllamaModelName,
  type OllamaModelInfo,
  ollamaCapabilities,
  parseOllamaShow,
} from './models.js';
import {
  type OllamaAdapterConfig,
  type OllamaCallOptions,
  type OllamaConfigOptions,
  type OllamaRuntimeOptions,
  validateOptions,
} from './options.js';
import { estimateOllamaInputTokens, OLLAMA_TOKEN_ESTIMATE_FACTOR } from './tokens.js';

export type {
  OllamaAdapterConfig,
  OllamaCallOptions,
  OllamaConfigOptions,
  OllamaRuntimeOptions,
} from './options.js';

/** The model whose capabilities `adapter.capabilities` reports unless `options.default_model` says. */
export const DEFAULT_OLLAMA_MODEL = 'ollama:llama3.2';

const NEVER_ABORTED = new AbortController().signal;

/**
 * The Ollama adapter, on the official `ollama` client (`/api/chat`, NDJSON streaming). Local
 * models differ: each model's capabilities come from `/api/show` (read on the first call to it,
 * or up front with {@link OllamaAdapter.detectCapabilities}), with configuration overrides on
 * top; before that they are conservative. Tool calls get canonical ids (Ollama issues none);
 * usage comes from `prompt_eval_count` / `eval_count`; cost is the pricing package's explicit
 * zero.
 *
 * ```ts
 * const ollama = new OllamaAdapter({ base_url: 'http://127.0.0.1:11434' });
 * await ollama.detectCapabilities('ollama:qwen3:8b');
 * const reply = await ollama.complete({ request_id: newRequestId(), model: 'ollama:qwen3:8b', messages, max_output_tokens: 512 });
 * ```
 */
export class OllamaAdapter extends AdapterBase {
  /** Adapter name and provider key. */
  readonly name = OLLAMA;
  readonly #options: OllamaConfigOptions;
  readonly #transport: OllamaTransportSettings;
  /** What is redacted from errors: the API key and the `extra_headers` values. */
  readonly #secrets: readonly string[];
  readonly #detected = new Map<string, OllamaModelInfo>();
  readonly #detecting = new Map<string, Promise<OllamaModelInfo>>();

  /**
   * Creates an adapter. `base_url` defaults to the `OLLAMA_HOST` environment variable, else
   * `http://127.0.0.1:11434`. `api_key` is only needed behind an authenticating proxy or for
   * ollama.com (sent as `Authorization: Bearer`).
   */
  constructor(config: OllamaAdapterConfig = {}, runtime: OllamaRuntimeOptions = {}) {
    super('Ollama', config as AdapterConfigInput, runtime);
    this.#options = validateOptions(this.configOptions<OllamaConfigOptions>());
    const apiKey = this.config.api_key;
    this.#transport = {
      host: this.config.base_url ?? process.env.OLLAMA_HOST ?? DEFAULT_OLLAMA_HOST,
      headers: {
        ...this.config.extra_headers,
        ...(apiKey ? { Authorization: `Bearer ${apiKey}` } : {}),
      },
      timeoutMs: this.config.timeout_seconds * 1000,
      ...(runtime.fetch ? { fetch: runtime.fetch } : {}),
    };
    const envKey = process.env.OLLAMA_API_KEY;
    this.#secrets = [
      ...(apiKey ? [apiKey] : []),
      // the ollama client sends it to ollama.com on its own
      ...(envKey ? [envKey] : []),
      ...Object.values(this.config.extra_headers ?? {}),
    ];
  }

  /**
   * Why no call can be made as configured, or null. A local or self-hosted Ollama server needs
   * no key, so this is null unless the host is ollama.com, which refuses calls without one:
   * then `api_key` in the config, `OLLAMA_API_KEY` in the environment (which the ollama client
   * sends there) or an `Authorization` header in `extra_headers` must be set.
   */
  setupProblem(): string | null {
    return ollamaCredentialProblem(this.#transport.host, this.config);
  }

  protected defaultModel(): string {
    return this.#options.default_model ?? DEFAULT_OLLAMA_MODEL;
  }

  /** What `/api/show` reported for the model (conservative defaults until read), no overrides. */
  protected baseCapabilities(wireName: string): AdapterCapabilities {
    return ollamaCapabilities(this.#detected.get(normalizeOllamaModelName(wireName)), {
      configured: this.#options.num_ctx,
    });
  }

  /** The Ollama server this adapter talks to. */
  get host(): string {
    return this.#transport.host;
  }

  /**
   * Honest capabilities of a local model (canonical id or wire name): what `/api/show` reported
   * (conservative defaults until it was read), with `capabilityOverrides` on top.
   * `max_context_tokens` is the `num_ctx` the adapter sends for the model, which Ollama never
   * exceeds: a longer prompt is refused (or, on older servers, silently truncated).
   */
  override capabilitiesFor(model: string): AdapterCapabilities {
    const wire = this.wireName(model);
    return ollamaCapabilities(this.#detected.get(normalizeOllamaModelName(wire)), {
      configured: this.#options.num_ctx,
      overrides: this.capabilityOverride(model, wire),
    });
  }

  /**
   * Reads a model's capabilities from `/api/show` (once; later calls use the cache) and returns
   * them. Call it at startup for the models you route to: `capabilitiesFor` is synchronous and
   * conservative until a model was detected. Fails with an `AdapterError` (e.g. a
   * `NetworkError` when Ollama is not running, an `InvalidRequestError` for a model that is not
   * pulled).
   */
  async detectCapabilities(
    model: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<AdapterCapabilities> {
    const wire = this.wireName(model);
    if (!this.#detected.has(normalizeOllamaModelName(wire))) {
      await this.#detect(wire, options.signal ?? NEVER_ABORTED);
    }
    return this.capabilitiesFor(model);
  }

  /** Like {@link detectCapabilities}, but always asks `/api/show` again (after `ollama pull`). */
  async refreshCapabilities(
    model: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<AdapterCapabilities> {
    const wire = this.wireName(model);
    this.#detected.delete(normalizeOllamaModelName(wire));
    await this.#detect(wire, options.signal ?? NEVER_ABORTED);
    return this.capabilitiesFor(model);
  }

  /**
   * Whether `/api/show` was read for `model`: `false` means {@link capabilitiesFor} still
   * reports conservative defaults (with `capabilityOverrides` applied). Always `true` with the
   * `detect_capabilities: false` option, which says the configured capabilities are final. The
   * router's `prepare()` detects every model for which this is `false`.
   */
  capabilitiesDetected(model: string): boolean {
    if (this.#options.detect_capabilities === false) return true;
    return this.#detected.has(normalizeOllamaModelName(this.wireName(model)));
  }

  /** What `/api/show` said about a model, if it was read. */
  modelInfo(model: string): OllamaModelInfo | undefined {
    return this.#detected.get(normalizeOllamaModelName(this.wireName(model)));
  }

  /** A non-streaming `/api/chat` call. */
  complete(request: CanonicalRequestInput, options: CallOptions = {}): Promise<CanonicalResponse> {
    return runCompleteCall(
      this.#setup(),
      request,
      options,
      async ({ request: req, signal, logger }) => {
        const toolIdMap = options.toolIdMap ?? new ToolIdMap();
        const transport = createOllamaCallTransport(this.#transport, signal);
        try {
          const { params, numCtx } = await this.#encode(req, toolIdMap, logger, options, signal);
          const started = Date.now();
          const response: ChatResponse = await transport.client.chat({ ...params, stream: false });
          const decoded = fromOllamaChatResponse(response, toolIdMap, {
            estimateInputTokens: () => this.#estimate(req),
            requestModel: req.model,
            toolNames: requestToolNames(req),
          });
          this.#checkUsage(decoded.usage, numCtx, req, logger);
          return {
            request_id: req.request_id,
            model: req.model,
            provider: OLLAMA,
            content: decoded.content,
            stop_reason: decoded.stop_reason,
            usage: decoded.usage,
            latency_ms: Date.now() - started,
            provider_raw: decoded.provider_raw,
            ...(decoded.served_model ? { served_model: decoded.served_model } : {}),
          };
        } catch (error) {
          throw this.#toError(error, req, transport);
        }
      },
    );
  }

  /** A streaming `/api/chat` call (NDJSON), as canonical events. */
  stream(request: CanonicalRequestInput, options: CallOptions = {}): AsyncIterable<StreamEvent> {
    const toolIdMap = options.toolIdMap ?? new ToolIdMap();
    let map: ReturnType<typeof createOllamaStreamMapper> | undefined;
    let numCtx = 0;
    return runStreamCall<ChatResponse>(this.#setup(), request, options, {
      open: async ({ request: req, signal, logger }) => {
        const transport = createOllamaCallTransport(this.#transport, signal, { stream: true });
        try {
          const encoded = await this.#encode(req, toolIdMap, logger, options, signal);
          numCtx = encoded.numCtx;
          map = createOllamaStreamMapper(toolIdMap, {
            estimateInputTokens: () => this.#estimate(req),
            requestModel: req.model,
            toolNames: requestToolNames(req),
          });
          // the client sends the request and checks the status; the body is read by the
          // transport (each line parsed once, an unparseable one is an error: decision 0081)
          await transport.client.chat({ ...encoded.params, stream: true });
          return this.#mapStreamErrors(transport.chunks(), req, transport);
        } catch (error) {
          throw this.#toError(error, req, transport);
        }
      },
      onChunk: (chunk, builder, { request: req, logger }) => {
        if (!map) return [];
        const events = map(chunk, builder);
        if (chunk.done) this.#checkUsage(builder.usage, numCtx, req, logger);
        return events;
      },
    });
  }

  /**
   * Input-token estimate for a local model, without calling Ollama: core's heuristic ×
   * `options.token_estimate_factor` (1.2) plus chat-template overhead, meant to sit at or above
   * the real count so routing keeps prompts that Ollama would truncate away.
   */
  override estimateInputTokens(
    messages: readonly Message[],
    tools: readonly ToolDefinition[],
    system_prompt: string | null | undefined,
  ): number {
    return estimateOllamaInputTokens(
      messages,
      tools,
      system_prompt,
      this.#options.token_estimate_factor ?? OLLAMA_TOKEN_ESTIMATE_FACTOR,
    );
  }

  #estimate(request: CanonicalRequest): number {
    return this.estimateInputTokens(request.messages, request.tools, request.system_prompt);
  }

  /** Overrides by canonical id, wire name, or either in Ollama's normalized form (`:latest`). */
  protected override capabilityOverride(
    model: string,
    wire: string,
  ): Partial<AdapterCapabilities> | undefined {
    const overrides = this.runtime.capabilityOverrides;
    if (!overrides) return undefined;
    const normalized = normalizeOllamaModelName(wire);
    return (
      overrides[model] ??
      overrides[wire] ??
      overrides[normalized] ??
      overrides[`${OLLAMA}:${wire}`] ??
      overrides[`${OLLAMA}:${normalized}`]
    );
  }

  async #detect(wire: string, signal: AbortSignal): Promise<OllamaModelInfo> {
    const key = normalizeOllamaModelName(wire);
    const pending = this.#detecting.get(key);
    if (pending) return pending;
    const detection = (async () => {
      const transport = createOllamaCallTransport(this.#transport, signal);
      try {
        const show = await transport.client.show({ model: wire });
        const info = parseOllamaShow(show);
        this.#detected.set(key, info);
        if (!info.capabilities.includes('completion')) {
          this.logger.warn(
            { event: 'model_cannot_chat', adapter: OLLAMA, model: wire },
            `${wire} does not list the "completion" capability (an embedding model?); chat calls to it will fail`,
          );
        }
        return info;
      } catch (error) {
        throw toOllamaAdapterError(error, {
          request_id: '',
          host: this.#transport.host,
          model: wire,
          apiKey: this.config.api_key,
          secrets: this.#secrets,
          headers: transport.lastHeaders(),
        });
      }
    })();
    this.#detecting.set(key, detection);
    try {
      return await detection;
    } finally {
      this.#detecting.delete(key);
    }
  }

  async #encode(
    request: CanonicalRequest,
    toolIdMap: ToolIdMap,
    logger: Logger,
    options: CallOptions,
    signal: AbortSignal,
  ): Promise<{ params: OllamaChatParams; numCtx: number }> {
    const wireName = this.checkRequest(request);
    if (
      this.#options.detect_capabilities !== false &&
      !this.#detected.has(normalizeOllamaModelName(wireName))
    ) {
      await this.#detectBeforeCall(wireName, request, logger, signal);
    }
    const capabilities = this.capabilitiesFor(request.model);
    const perCall = (options.providerOptions?.[OLLAMA] ?? {}) as OllamaCallOptions;
    const think = perCall.think ?? this.#options.think;
    const keepAlive = perCall.keep_alive ?? this.#options.keep_alive;
    const numCtx = capabilities.max_context_tokens;
    const estimate = this.#estimate(request);
    if (estimate > numCtx) {
      logger.warn(
        {
          event: 'context_may_overflow',
          adapter: OLLAMA,
          request_id: request.request_id,
          estimated_input_tokens: estimate,
          num_ctx: numCtx,
        },
        `the prompt is estimated at ${estimate} tokens, more than the ${numCtx}-token context (num_ctx) of ${wireName}; Ollama refuses it, or on older servers silently truncates it`,
      );
    }
    const { params } = toOllamaChatRequest(request, {
      toolIdMap,
      logger,
      capabilities,
      options: {
        wireName,
        numCtx,
        ...(think === undefined ? {} : { think }),
        ...(keepAlive === undefined ? {} : { keepAlive }),
        ...(this.#options.truncate === undefined ? {} : { truncate: this.#options.truncate }),
        ...(this.#options.shift === undefined ? {} : { shift: this.#options.shift }),
        modelStop: this.modelInfo(request.model)?.stop ?? [],
        modelOptions: { ...this.#options.model_options, ...perCall.options },
      },
    });
    return { params, numCtx };
  }

  /**
   * Detection on first use. A failure is logged and the call goes on with what is known (the
   * chat request then reports the real problem, e.g. Ollama not running); only this call's own
   * cancellation stops it.
   */
  async #detectBeforeCall(
    wireName: string,
    request: CanonicalRequest,
    logger: Logger,
    signal: AbortSignal,
  ): Promise<void> {
    try {
      await this.#detect(wireName, signal);
    } catch (error) {
      if (signal.aborted) throw error;
      const mapped = error as AdapterError;
      logger.warn(
        {
          event: 'capability_detection_failed',
          adapter: OLLAMA,
          request_id: request.request_id,
          model: wireName,
          error_class: mapped.error_class,
        },
        `could not read the capabilities of ${wireName} from /api/show (${mapped.message}); using what is known`,
      );
    }
  }

  #checkUsage(usage: TokenUsage, numCtx: number, request: CanonicalRequest, logger: Logger): void {
    const fields = { adapter: OLLAMA, request_id: request.request_id, model: request.model };
    if (usage.estimated) {
      logger.warn(
        { event: 'usage_estimated', ...fields, input_tokens: usage.input_tokens },
        'Ollama sent no prompt_eval_count (older servers omit it when the prompt came from the KV cache); input_tokens is estimated',
      );
    } else if (usage.input_tokens >= numCtx) {
      logger.warn(
        {
          event: 'context_truncated',
          ...fields,
          input_tokens: usage.input_tokens,
          num_ctx: numCtx,
        },
        `the prompt filled the whole ${numCtx}-token context: Ollama probably truncated it (raise num_ctx, or shorten the history)`,
      );
    }
  }

  #toError(
    error: unknown,
    request: CanonicalRequest,
    transport: OllamaCallTransport,
  ): AdapterError {
    return toOllamaAdapterError(error, {
      request_id: request.request_id,
      host: this.#transport.host,
      model: this.wireName(request.model),
      apiKey: this.config.api_key,
      secrets: this.#secrets,
      headers: transport.lastHeaders(),
    });
  }

  /**
   * The client's chunks, with every failure while reading them mapped here (typed, redacted),
   * so that whatever core wraps around it (a passed deadline) never holds the raw client error.
   */
  #mapStreamErrors(
    chunks: AsyncIterable<ChatResponse>,
    request: CanonicalRequest,
    transport: OllamaCallTransport,
  ): AsyncIterable<ChatResponse> {
    const toError = (error: unknown) => this.#toError(error, request, transport);
    return {
      [Symbol.asyncIterator]: () => {
        const source = chunks[Symbol.asyncIterator]();
        return {
          next: () =>
            source.next().catch((error: unknown) => {
              throw toError(error);
            }),
          return: async () => {
            await source.return?.();
            return { done: true, value: undefined };
          },
        };
      },
    };
  }

  #setup() {
    return this.callSetup((error, request) =>
      toOllamaAdapterError(error, {
        request_id: request.request_id,
        host: this.#transport.host,
        model: this.wireName(request.model),
        apiKey: this.config.api_key,
        secrets: this.#secrets,
      }),
    );
  }
}
