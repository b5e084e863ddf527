import type {
  AdapterCapabilities,
  AdapterConfigInput,
  AdapterError,
  CanonicalRequest,
  Message,
  ToolDefinition,
} from '@yourtool/core';
import {
  type ChunkMapper,
  type DecodedReply,
  HistoryMemo,
  requestToolNames,
  WireAdapter,
  type WireAttempt,
  type WireBody,
  type WireCall,
} from '@yourtool/core/adapter';
import type { ChatResponse } from 'ollama';
import { checkOllamaUsage, warnIfPromptTooLong } from './call-checks.js';
import {
  createOllamaCallTransport,
  DEFAULT_OLLAMA_HOST,
  type OllamaCallTransport,
  type OllamaTransportSettings,
} from './client.js';
import { type OllamaErrorContext, toOllamaAdapterError } from './codec/errors.js';
import {
  OLLAMA,
  type OllamaChatParams,
  type OllamaThinkOption,
  toOllamaChatRequest,
} from './codec/request.js';
import { fromOllamaChatResponse, type OllamaDecodeOptions } from './codec/response.js';
import { createOllamaStreamMapper } from './codec/stream.js';
import { ollamaReadError, ollamaStreamBody } from './codec/stream-body.js';
import { ollamaCredentialProblem } from './credentials.js';
import { OllamaModelCatalog } from './detection.js';
import { normalizeOllamaModelName, type OllamaModelInfo, ollamaCapabilities } from './models.js';
import {
  type OllamaAdapterConfig,
  OllamaCallOptionsSchema,
  OllamaConfigOptionsSchema,
  type OllamaDefaults,
  type OllamaRuntimeOptions,
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
 * What `encode` decides for one attempt of an Ollama call. The chat parameters themselves wait
 * for the model's capabilities, which `/api/show` may still have to report (an asynchronous
 * read, with the attempt's signal), so `send` / `open` build them and record the `num_ctx` sent.
 */
export interface OllamaCallPlan {
  /** The model's wire name. */
  wireName: string;
  /** Thinking: this call's option, else the configured one. */
  think?: OllamaThinkOption;
  /** Keep-alive: this call's option, else the configured one. */
  keepAlive?: string | number;
  /** The configured model options with this call's over them. */
  modelOptions: Record<string, unknown>;
  /** The `num_ctx` sent (0 until the parameters were built), for the usage checks. */
  numCtx: number;
}

/**
 * The Ollama adapter, on the official `ollama` client (`/api/chat`, NDJSON streaming). Local
 * models differ: each model's capabilities come from `/api/show` (read on the first call to it,
 * or up front with {@link OllamaAdapter.detectCapabilities}), with configuration overrides on
 * top; before that they are conservative. Tool calls get canonical ids (Ollama issues none);
 * usage comes from `prompt_eval_count` / `eval_count`; cost is the pricing package's explicit
 * zero. A `WireAdapter`: each attempt gets its own client (cancelling one call must close only
 * its connection), and a streamed body is read by core, a network read at a time.
 *
 * ```ts
 * const ollama = new OllamaAdapter({ base_url: 'http://127.0.0.1:11434' });
 * await ollama.detectCapabilities('ollama:qwen3:8b');
 * const reply = await ollama.complete({ request_id: newRequestId(), model: 'ollama:qwen3:8b', messages, max_output_tokens: 512 });
 * ```
 */
export class OllamaAdapter extends WireAdapter<OllamaCallPlan, ChatResponse, ChatResponse> {
  /** Adapter name and provider key. */
  readonly name = OLLAMA;
  /** `config.options`, checked and parsed once. */
  readonly #defaults: OllamaDefaults;
  readonly #transport: OllamaTransportSettings;
  /** What is redacted from errors: the API key and the `extra_headers` values. */
  readonly #secrets: readonly string[];
  readonly #catalog: OllamaModelCatalog;
  readonly #historyMemo = new HistoryMemo(); // what prepareHistory remembers (decision 0165)

  /**
   * Creates an adapter. `base_url` defaults to the `OLLAMA_HOST` environment variable, else
   * `http://127.0.0.1:11434`. `api_key` is only needed behind an authenticating proxy or for
   * ollama.com (sent as `Authorization: Bearer`).
   * @throws AdapterOptionError for an unknown key, a wrong type or a value out of range in
   *   `config.options`.
   */
  constructor(config: OllamaAdapterConfig = {}, runtime: OllamaRuntimeOptions = {}) {
    super('Ollama', config as AdapterConfigInput, runtime);
    this.#defaults = this.parseOptions(OllamaConfigOptionsSchema, OLLAMA);
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
    this.#catalog = new OllamaModelCatalog({
      transport: this.#transport,
      logger: this.logger,
      errorContext: this.#errorContext(),
    });
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

  /** Where calls go (telemetry's `server.address`): the host, `http://` when it names no scheme. */
  protected override serverUrl(): string {
    const host = this.#transport.host;
    return host.includes('://') ? host : `http://${host}`;
  }

  protected defaultModel(): string {
    return this.#defaults.defaultModel ?? DEFAULT_OLLAMA_MODEL;
  }

  /** What `/api/show` reported for the model (conservative defaults until read), no overrides. */
  protected baseCapabilities(wireName: string): AdapterCapabilities {
    return ollamaCapabilities(this.#catalog.get(wireName), { configured: this.#defaults.numCtx });
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
    return ollamaCapabilities(this.#catalog.get(wire), {
      configured: this.#defaults.numCtx,
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
    if (!this.#catalog.has(wire)) await this.#catalog.detect(wire, options.signal ?? NEVER_ABORTED);
    return this.capabilitiesFor(model);
  }

  /** Like {@link detectCapabilities}, but always asks `/api/show` again (after `ollama pull`). */
  async refreshCapabilities(
    model: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<AdapterCapabilities> {
    const wire = this.wireName(model);
    this.#catalog.forget(wire);
    await this.#catalog.detect(wire, options.signal ?? NEVER_ABORTED);
    return this.capabilitiesFor(model);
  }

  /**
   * Whether `/api/show` was read for `model`: `false` means {@link capabilitiesFor} still
   * reports conservative defaults (with `capabilityOverrides` applied). Always `true` with the
   * `detect_capabilities: false` option, which says the configured capabilities are final. The
   * router's `prepare()` detects every model for which this is `false`.
   */
  capabilitiesDetected(model: string): boolean {
    if (this.#defaults.detectCapabilities === false) return true;
    return this.#catalog.has(this.wireName(model));
  }

  /** What `/api/show` said about a model, if it was read. */
  modelInfo(model: string): OllamaModelInfo | undefined {
    return this.#catalog.get(this.wireName(model));
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
      this.#defaults.tokenEstimateFactor ?? OLLAMA_TOKEN_ESTIMATE_FACTOR,
    );
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

  /** This call's options over the configured ones; the parameters wait for the capabilities. */
  protected encode({ request, options }: WireCall): OllamaCallPlan {
    const perCall = this.parseCallOptions(OllamaCallOptionsSchema, options);
    const think = perCall.think ?? this.#defaults.think;
    const keepAlive = perCall.keepAlive ?? this.#defaults.keepAlive;
    return {
      wireName: this.wireName(request.model),
      ...(think === undefined ? {} : { think }),
      ...(keepAlive === undefined ? {} : { keepAlive }),
      modelOptions: { ...this.#defaults.modelOptions, ...perCall.options },
      numCtx: 0,
    };
  }

  /** A non-streaming `/api/chat` call, on a client of its own. */
  protected async send(plan: OllamaCallPlan, attempt: WireAttempt): Promise<ChatResponse> {
    const transport = createOllamaCallTransport(this.#transport, attempt.signal);
    try {
      const params = await this.#params(plan, attempt);
      return await transport.client.chat({ ...params, stream: false });
    } catch (error) {
      throw this.#toError(error, attempt.request, transport);
    }
  }

  /**
   * A streaming `/api/chat` call, on a client of its own: the client sends the request and
   * checks the status; core reads the NDJSON body a network read at a time, each line parsed
   * once by {@link ollamaStreamBody} (an unparseable one an error), and every failure while
   * reading it goes through {@link toAdapterError} (no async step per line; decision 0147).
   */
  protected async open(
    plan: OllamaCallPlan,
    attempt: WireAttempt,
  ): Promise<WireBody<ChatResponse>> {
    const transport = createOllamaCallTransport(this.#transport, attempt.signal, { stream: true });
    try {
      const params = await this.#params(plan, attempt);
      await transport.client.chat({ ...params, stream: true });
      return ollamaStreamBody(transport.body());
    } catch (error) {
      throw this.#toError(error, attempt.request, transport);
    }
  }

  /** A whole reply, decoded by the codec; usage estimated or the context filled is a WARN. */
  protected decode(reply: ChatResponse, plan: OllamaCallPlan, call: WireCall): DecodedReply {
    const decoded = fromOllamaChatResponse(reply, call.toolIdMap, this.#decodeOptions(call));
    checkOllamaUsage(decoded.usage, plan.numCtx, call.request, call.logger);
    return decoded;
  }

  /** The codec's stream mapper, one per stream, with the usage checks at the `done` chunk. */
  protected chunkMapper(plan: OllamaCallPlan, call: WireCall): ChunkMapper<ChatResponse> {
    const map = createOllamaStreamMapper(call.toolIdMap, this.#decodeOptions(call));
    return (chunk, builder) => {
      const events = map(chunk, builder);
      if (chunk.done) checkOllamaUsage(builder.usage, plan.numCtx, call.request, call.logger);
      return events;
    };
  }

  /**
   * The codec's error mapping (no response headers: those only the attempt's transport has),
   * also for what failed while core read a streamed body: core's `MalformedStreamError` for a
   * line is the adapter's own malformed-line error ({@link ollamaReadError}).
   */
  protected toAdapterError(error: unknown, request: CanonicalRequest): AdapterError {
    return toOllamaAdapterError(ollamaReadError(error), {
      ...this.#errorContext(),
      request_id: request.request_id,
      model: this.wireName(request.model),
    });
  }

  /**
   * The chat parameters of an attempt: the model's capabilities read first when they were not
   * yet (a failed read is a WARN, and the call goes on with what is known).
   */
  async #params(plan: OllamaCallPlan, attempt: WireAttempt): Promise<OllamaChatParams> {
    const { request, logger, toolIdMap, signal } = attempt;
    const { wireName } = plan;
    if (this.#defaults.detectCapabilities !== false && !this.#catalog.has(wireName)) {
      await this.#catalog.detectForCall(wireName, {
        request_id: request.request_id,
        logger,
        signal,
      });
    }
    const capabilities = this.capabilitiesFor(request.model);
    plan.numCtx = capabilities.max_context_tokens;
    const estimate = this.#estimate(request);
    warnIfPromptTooLong(request, { estimate, numCtx: plan.numCtx, wireName }, logger);
    const { truncate, shift } = this.#defaults;
    return toOllamaChatRequest(request, {
      toolIdMap,
      logger,
      historyMemo: this.#historyMemo,
      capabilities,
      options: {
        wireName,
        numCtx: plan.numCtx,
        ...(plan.think === undefined ? {} : { think: plan.think }),
        ...(plan.keepAlive === undefined ? {} : { keepAlive: plan.keepAlive }),
        ...(truncate === undefined ? {} : { truncate }),
        ...(shift === undefined ? {} : { shift }),
        modelStop: this.#catalog.get(wireName)?.stop ?? [],
        modelOptions: plan.modelOptions,
      },
    }).params;
  }

  #estimate(request: CanonicalRequest): number {
    return this.estimateInputTokens(request.messages, request.tools, request.system_prompt);
  }

  #decodeOptions({ request }: WireCall): OllamaDecodeOptions {
    return {
      estimateInputTokens: () => this.#estimate(request),
      requestModel: request.model,
      toolNames: requestToolNames(request),
    };
  }

  /** Host, key and secrets, for every error the adapter maps. */
  #errorContext(): Omit<OllamaErrorContext, 'request_id'> {
    return { host: this.#transport.host, apiKey: this.config.api_key, secrets: this.#secrets };
  }

  #toError(
    error: unknown,
    request: CanonicalRequest,
    transport: OllamaCallTransport,
  ): AdapterError {
    return toOllamaAdapterError(error, {
      ...this.#errorContext(),
      request_id: request.request_id,
      model: this.wireName(request.model),
      headers: transport.lastHeaders(),
    });
  }
}
