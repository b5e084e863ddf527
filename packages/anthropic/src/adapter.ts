import Anthropic from '@anthropic-ai/sdk';
import {
  type AdapterCallSetup,
  type AdapterCapabilities,
  type AdapterConfig,
  type AdapterConfigInput,
  AdapterConfigSchema,
  type AdapterRuntimeOptions,
  type CallOptions,
  type CanonicalRequestInput,
  type CanonicalResponse,
  estimateRequestTokens,
  InflightCalls,
  InvalidRequestError,
  type Logger,
  type Message,
  type ProviderAdapter,
  parseModelId,
  runCompleteCall,
  runStreamCall,
  type StreamEvent,
  silentLogger,
  type ToolDefinition,
  ToolIdMap,
} from '@yourtool/core';
import { toAnthropicAdapterError } from './codec/errors.js';
import {
  ANTHROPIC,
  type AnthropicRequestOptions,
  type AnthropicThinkingOption,
  toAnthropicParams,
} from './codec/request.js';
import { fromAnthropicMessage } from './codec/response.js';
import { createAnthropicStreamMapper } from './codec/stream.js';
import { claudeModelInfo } from './models.js';

/** The model whose capabilities `adapter.capabilities` reports. */
export const DEFAULT_ANTHROPIC_MODEL = 'anthropic:claude-sonnet-4-6';

/** Anthropic options read from `AdapterConfig.options` (defaults for every call). */
export interface AnthropicConfigOptions {
  /** Default extended thinking (per call: `providerOptions.anthropic.thinking`). */
  thinking?: AnthropicThinkingOption;
  /** Cache breakpoints on the system prompt and tools. Default true. */
  prompt_caching?: boolean;
  /** `anthropic-version` header; see `AnthropicRequestOptions.apiVersion`. */
  anthropic_version?: string;
}

/** Construction options of {@link AnthropicAdapter} besides the config. */
export interface AnthropicRuntimeOptions extends AdapterRuntimeOptions {
  /** Wire model names by canonical id, when they differ from the name in the id. */
  wireNames?: Record<string, string>;
  /** A custom fetch (proxies, instrumentation). */
  fetch?: typeof fetch;
}

/**
 * The Anthropic Messages API adapter, on the official `@anthropic-ai/sdk` (its own retries
 * off; core's bounded retry on).
 *
 * ```ts
 * const claude = new AnthropicAdapter({ api_key: process.env.ANTHROPIC_API_KEY });
 * const reply = await claude.complete({ request_id: newRequestId(), model: 'anthropic:claude-sonnet-4-6', messages, max_output_tokens: 1024 });
 * ```
 */
export class AnthropicAdapter implements ProviderAdapter {
  /** Adapter name and provider key. */
  readonly name = ANTHROPIC;
  readonly #config: AdapterConfig;
  readonly #runtime: AnthropicRuntimeOptions;
  readonly #client: Anthropic;
  readonly #inflight = new InflightCalls();
  readonly #logger: Logger;
  #closed = false;

  /** Creates an adapter. `api_key` defaults to the `ANTHROPIC_API_KEY` environment variable. */
  constructor(config: AdapterConfigInput = {}, runtime: AnthropicRuntimeOptions = {}) {
    const parsed = AdapterConfigSchema.safeParse(config);
    if (!parsed.success) {
      throw new InvalidRequestError(
        `invalid Anthropic adapter config: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
        { provider: ANTHROPIC },
      );
    }
    this.#config = parsed.data;
    this.#runtime = runtime;
    this.#logger = runtime.logger ?? silentLogger;
    const options = this.#options();
    this.#client = new Anthropic({
      // unset values fall back to the SDK's environment variables
      // (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL)
      ...(this.#config.api_key ? { apiKey: this.#config.api_key } : {}),
      ...(this.#config.base_url ? { baseURL: this.#config.base_url } : {}),
      maxRetries: 0,
      timeout: this.#config.timeout_seconds * 1000,
      defaultHeaders: {
        ...this.#config.extra_headers,
        ...(options.anthropic_version ? { 'anthropic-version': options.anthropic_version } : {}),
      },
      openTelemetry: false,
      logLevel: 'off',
      ...(runtime.fetch ? { fetch: runtime.fetch } : {}),
    });
  }

  /** Capabilities of the default model (`anthropic:claude-sonnet-4-6`). */
  get capabilities(): AdapterCapabilities {
    return this.capabilitiesFor(DEFAULT_ANTHROPIC_MODEL);
  }

  /** Honest capabilities of a Claude model (canonical id or wire name), with overrides applied. */
  capabilitiesFor(model: string): AdapterCapabilities {
    const wire = this.#wireName(model);
    const base = claudeModelInfo(wire).capabilities;
    const override =
      this.#runtime.capabilityOverrides?.[model] ?? this.#runtime.capabilityOverrides?.[wire];
    return override ? { ...base, ...override } : base;
  }

  /** A non-streaming Messages API call. */
  complete(request: CanonicalRequestInput, options: CallOptions = {}): Promise<CanonicalResponse> {
    return runCompleteCall(
      this.#setup(),
      request,
      options,
      async ({ request: req, signal, logger }) => {
        const toolIdMap = options.toolIdMap ?? new ToolIdMap();
        const { params } = this.#encode(req, toolIdMap, logger, options);
        const started = Date.now();
        const message = await this.#client.messages.create(
          { ...params, stream: false },
          { signal },
        );
        const decoded = fromAnthropicMessage(message, toolIdMap, logger);
        return {
          request_id: req.request_id,
          model: req.model,
          provider: ANTHROPIC,
          content: decoded.content,
          stop_reason: decoded.stop_reason,
          usage: decoded.usage,
          latency_ms: Date.now() - started,
          provider_raw: decoded.provider_raw,
        };
      },
    );
  }

  /** A streaming Messages API call, as canonical events. */
  stream(request: CanonicalRequestInput, options: CallOptions = {}): AsyncIterable<StreamEvent> {
    const toolIdMap = options.toolIdMap ?? new ToolIdMap();
    let map: ReturnType<typeof createAnthropicStreamMapper> | undefined;
    return runStreamCall<Anthropic.RawMessageStreamEvent>(this.#setup(), request, options, {
      open: async ({ request: req, signal, logger }) => {
        const { params } = this.#encode(req, toolIdMap, logger, options);
        map = createAnthropicStreamMapper(toolIdMap, logger);
        return this.#client.messages.create({ ...params, stream: true as const }, { signal });
      },
      onChunk: (chunk, builder) => (map ? map(chunk, builder) : []),
    });
  }

  /** Heuristic input-token estimate (core's), without calling the API. */
  estimateInputTokens(
    messages: readonly Message[],
    tools: readonly ToolDefinition[],
    system_prompt: string | null | undefined,
  ): number {
    return estimateRequestTokens(messages, tools, system_prompt);
  }

  /** Cancels an in-flight call; `true` if one was running. */
  async cancel(request_id: string): Promise<boolean> {
    return this.#inflight.cancel(request_id);
  }

  /** Cancels in-flight calls and refuses further ones. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#inflight.cancelAll();
  }

  #options(): AnthropicConfigOptions {
    return this.#config.options as AnthropicConfigOptions;
  }

  #wireName(model: string): string {
    const mapped = this.#runtime.wireNames?.[model];
    if (mapped) return mapped;
    return model.includes(':') ? parseModelId(model).name : model;
  }

  #encode(
    request: Parameters<typeof toAnthropicParams>[0],
    toolIdMap: ToolIdMap,
    logger: Logger,
    options: CallOptions,
  ) {
    if (this.#closed)
      throw new InvalidRequestError('the Anthropic adapter is closed', { provider: ANTHROPIC });
    const { provider } = parseModelId(request.model);
    if (provider !== ANTHROPIC) {
      throw new InvalidRequestError(`model "${request.model}" is not an Anthropic model`, {
        provider: ANTHROPIC,
        request_id: request.request_id,
      });
    }
    const defaults = this.#options();
    const perCall = (options.providerOptions?.[ANTHROPIC] ?? {}) as {
      thinking?: AnthropicThinkingOption;
      promptCaching?: boolean;
    };
    const wireName = this.#wireName(request.model);
    const requestOptions: AnthropicRequestOptions = {
      wireName,
      ...(defaults.anthropic_version ? { apiVersion: defaults.anthropic_version } : {}),
      promptCaching: perCall.promptCaching ?? defaults.prompt_caching ?? true,
      ...((perCall.thinking ?? defaults.thinking)
        ? { thinking: perCall.thinking ?? defaults.thinking }
        : {}),
    };
    const model = claudeModelInfo(wireName);
    const override = this.#runtime.capabilityOverrides?.[request.model];
    return toAnthropicParams(request, {
      toolIdMap,
      logger,
      options: requestOptions,
      model: override ? { ...model, capabilities: { ...model.capabilities, ...override } } : model,
    });
  }

  #setup(): AdapterCallSetup {
    return {
      provider: ANTHROPIC,
      inflight: this.#inflight,
      maxRetries: this.#config.max_retries,
      ...(this.#runtime.retry ? { retry: this.#runtime.retry } : {}),
      logger: this.#logger,
      toAdapterError: (error, request) =>
        toAnthropicAdapterError(
          error,
          request.request_id,
          this.#config.api_key ?? process.env.ANTHROPIC_API_KEY,
        ),
    };
  }
}
