import type { CallOptions, CallRunnerOptions, ProviderAdapter } from './adapter.js';
import { type AdapterContext, AdapterFrame, wireFinishReasonOf } from './adapter-frame.js';
import { runCompleteCall } from './call-complete.js';
import type { CallAttemptContext, StreamCallSpec } from './call-shared.js';
import { runStreamCall } from './call-stream.js';
import { HistoryMemo } from './history-memo.js';
import { parseModelId } from './model-id.js';
import type {
  AdapterCapabilities,
  AdapterConfigInput,
  CanonicalRequestInput,
  CanonicalResponse,
  TokenUsage,
} from './schemas/adapter.js';
import type { ContentBlock } from './schemas/content.js';
import type { Message } from './schemas/message.js';
import type { StreamEvent } from './schemas/stream.js';
import type { ToolDefinition } from './schemas/tool.js';
import type { StreamBuilder } from './stream/builder.js';
import { estimateBlockTokens, estimateRequestTokens } from './tokens.js';
import { ToolIdMap } from './tool-id-map.js';
import type {
  ChunkMapper,
  DecodedReply,
  StreamTraits,
  WireAssembly,
  WireCall,
  WireCodec,
  WireModels,
  WireProvider,
  WireTransport,
} from './wire-parts.js';

/**
 * The one shape of an adapter over a provider's wire protocol, assembled from three parts
 * rather than subclassed: a {@link WireCodec} (canonical ↔ wire, no I/O), a
 * {@link WireTransport} (the SDK's calls) and {@link WireModels} (the default model and what
 * each model can do). The `complete()` / `stream()` skeleton lives here once: request checks,
 * deadlines, retries, cancellation, the stream error contract, response assembly, usage
 * estimates when the provider sends none.
 *
 * A provider's adapter is a thin class whose constructor names the provider and builds its
 * parts from the validated configuration; presets of one wire (Groq on Chat Completions) are
 * data handed to the same parts factory, not subclasses.
 *
 * ```ts
 * export class AcmeAdapter extends WireAdapter<AcmeBody, AcmeReply, AcmeChunk> {
 *   constructor(config: AdapterConfigInput = {}, runtime: CallRunnerOptions = {}) {
 *     super({ name: 'acme', label: 'Acme' }, config, runtime, (context) => ({
 *       codec: acmeCodec,
 *       transport: new AcmeTransport(context),
 *       models: ACME_MODELS,
 *     }));
 *   }
 * }
 * ```
 */
export class WireAdapter<Encoded, Reply, Chunk> implements ProviderAdapter {
  /** Adapter name and provider key. */
  readonly name: string;
  readonly #frame: AdapterFrame;
  readonly #codec: WireCodec<Encoded, Reply, Chunk>;
  readonly #transport: WireTransport<Encoded, Reply, Chunk>;
  readonly #models: WireModels;
  readonly #traits: StreamTraits<Chunk>;
  /** What `prepareHistory` remembers between this adapter's calls (decision 0165). */
  readonly #historyMemo = new HistoryMemo();

  /**
   * Validates `config` (an `InvalidRequestError` names each bad field), then builds the parts
   * with `assemble`, which may throw `AdapterOptionError` for the adapter's own options.
   */
  constructor(
    provider: WireProvider,
    config: AdapterConfigInput,
    runtime: CallRunnerOptions,
    assemble: WireAssembly<Encoded, Reply, Chunk>,
  ) {
    this.name = provider.name;
    this.#frame = new AdapterFrame(
      provider.label ?? provider.name,
      () => this.name,
      config,
      runtime,
    );
    const parts = assemble(this.#frame);
    this.#codec = parts.codec;
    this.#transport = parts.transport;
    this.#models = parts.models;
    this.#traits = parts.codec.streamTraits ?? {};
  }

  /** What the parts were built from, for a subclass's own methods. */
  protected get context(): AdapterContext {
    return this.#frame;
  }

  /** Capabilities of the default model. */
  get capabilities(): AdapterCapabilities {
    return this.capabilitiesFor(this.#models.defaultModel);
  }

  /**
   * Honest capabilities of a model (canonical id or wire name): the adapter's declaration with
   * `capabilityOverrides` (by canonical id, else by wire name) on top.
   */
  capabilitiesFor(model: string): AdapterCapabilities {
    const wire = this.#frame.wireName(model);
    const models = this.#models;
    if (models.overridden) return models.overridden(model, wire);
    const base = models.capabilities(wire, model);
    const override = this.#frame.capabilityOverride(model, wire);
    return override ? { ...base, ...override } : base;
  }

  /** Input-token estimate without calling the provider (core's heuristic unless the models say). */
  estimateInputTokens(
    messages: readonly Message[],
    tools: readonly ToolDefinition[],
    system_prompt: string | null | undefined,
  ): number {
    const own = this.#models.estimateInputTokens;
    return own
      ? own.call(this.#models, messages, tools, system_prompt)
      : estimateRequestTokens(messages, tools, system_prompt);
  }

  /**
   * Why no call can be made as configured (the transport's answer: a missing key, named, never
   * quoted); `null` when ready.
   */
  setupProblem(): string | null {
    return this.#transport.setupProblem?.() ?? null;
  }

  /** Cancels an in-flight call; `true` if one was running. */
  async cancel(request_id: string): Promise<boolean> {
    return this.#frame.inflight.cancel(request_id);
  }

  /** Cancels in-flight calls and refuses further ones. */
  async close(): Promise<void> {
    this.#frame.close();
  }

  /** Non-streaming call, through the call runner. */
  complete(request: CanonicalRequestInput, options: CallOptions = {}): Promise<CanonicalResponse> {
    const toolIdMap = options.toolIdMap ?? new ToolIdMap();
    return runCompleteCall(this.#setup(), request, options, async (context) => {
      const call = this.#call(context, options, toolIdMap);
      const encoded = this.#codec.encode(call);
      const started = Date.now();
      const reply = await this.#transport.send(encoded, {
        ...call,
        signal: context.signal,
        attempt: context.attempt,
      });
      const decoded = this.#codec.decode(reply, encoded, call);
      return this.#response(call, decoded, Date.now() - started);
    });
  }

  /** Streaming call, as canonical events, through the call runner. */
  stream(request: CanonicalRequestInput, options: CallOptions = {}): AsyncIterable<StreamEvent> {
    const toolIdMap = options.toolIdMap ?? new ToolIdMap();
    const spec = new WireStreamSpec<Chunk>(async (context) => {
      const call = this.#call(context, options, toolIdMap);
      const encoded = this.#codec.encode(call);
      spec.map = this.#codec.chunkMapper(encoded, call);
      return this.#transport.open(encoded, {
        ...call,
        signal: context.signal,
        attempt: context.attempt,
      });
    }, this.#traits);
    return runStreamCall<Chunk>(this.#setup(), request, options, spec);
  }

  #setup() {
    const transport = this.#transport;
    return this.#frame.callSetup({
      toAdapterError: (error, request) => transport.toAdapterError(error, request),
      serverUrl: () =>
        transport.serverUrl ? transport.serverUrl() : (this.#frame.config.base_url ?? undefined),
      wireFinishReason: (raw) => wireFinishReasonOf(this.name, raw),
    });
  }

  #call(context: CallAttemptContext, options: CallOptions, toolIdMap: ToolIdMap): WireCall {
    const { request } = context;
    const wireName = this.#frame.checkRequest(request);
    return {
      request,
      logger: context.logger,
      toolIdMap,
      options,
      modelProvider: parseModelId(request.model).provider,
      wireName,
      capabilities: this.capabilitiesFor(request.model),
      historyMemo: this.#historyMemo,
    };
  }

  #response(call: WireCall, decoded: DecodedReply, latency: number): CanonicalResponse {
    const { request } = call;
    return {
      request_id: request.request_id,
      model: request.model,
      provider: this.name,
      content: decoded.content,
      stop_reason: decoded.stop_reason,
      usage: decoded.usage ?? this.#estimatedUsage(call, decoded.content),
      latency_ms: latency,
      ...(decoded.provider_raw ? { provider_raw: decoded.provider_raw } : {}),
      ...(decoded.provider_response_id
        ? { provider_response_id: decoded.provider_response_id }
        : {}),
      ...(decoded.served_model ? { served_model: decoded.served_model } : {}),
      ...(decoded.refusal ? { refusal: decoded.refusal } : {}),
    };
  }

  /** Local counts for a reply the provider sent no usage for, flagged and logged. */
  #estimatedUsage(call: WireCall, content: ContentBlock[]): TokenUsage {
    const { request, logger } = call;
    logger.warn(
      { event: 'usage_estimated', adapter: this.name, model: request.model },
      'the provider sent no usage for this reply; token counts are local estimates',
    );
    return {
      input_tokens: estimateRequestTokens(request.messages, request.tools, request.system_prompt),
      output_tokens: content.reduce((sum, block) => sum + estimateBlockTokens(block), 0),
      cached_input_tokens: 0,
      cache_creation_input_tokens: 0,
      estimated: true,
    };
  }
}

/**
 * One stream's spec. A class, not an object literal of closures: every stream then calls the
 * same `onChunk` function, so the runtime optimizes the per-chunk call once for all streams
 * instead of once per stream (decision 0147).
 */
class WireStreamSpec<Chunk> implements StreamCallSpec<Chunk> {
  map: ChunkMapper<Chunk> | undefined;
  readonly open: StreamCallSpec<Chunk>['open'];
  readonly startsMessage: StreamCallSpec<Chunk>['startsMessage'];
  readonly toolCallsEndAtFinish: boolean;

  constructor(open: StreamCallSpec<Chunk>['open'], traits: StreamTraits<Chunk>) {
    this.open = open;
    this.startsMessage = traits.startsMessage;
    this.toolCallsEndAtFinish = traits.toolCallsEndAtFinish === true;
  }

  onChunk(chunk: Chunk, builder: StreamBuilder): StreamEvent[] {
    return this.map ? this.map(chunk, builder) : [];
  }
}
