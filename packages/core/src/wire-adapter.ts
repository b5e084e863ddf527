import type { CallOptions } from './adapter.js';
import { AdapterBase } from './adapter-base.js';
import { runCompleteCall } from './call-complete.js';
import type { CallAttemptContext, StreamCallSpec } from './call-shared.js';
import { runStreamCall } from './call-stream.js';
import type { AdapterError } from './errors.js';
import type { Logger } from './logger.js';
import { parseModelId } from './model-id.js';
import type {
  CanonicalRequest,
  CanonicalRequestInput,
  CanonicalResponse,
  StopReason,
  TokenUsage,
} from './schemas/adapter.js';
import type { ContentBlock } from './schemas/content.js';
import type { StreamEvent } from './schemas/stream.js';
import type { StreamBuilder } from './stream/builder.js';
import type { WireBody } from './stream/wire-body.js';
import { estimateBlockTokens, estimateRequestTokens } from './tokens.js';
import { ToolIdMap } from './tool-id-map.js';

/** What one call of a {@link WireAdapter} knows besides the wire request. */
export interface WireCall {
  /** The validated canonical request. */
  request: CanonicalRequest;
  /** The call's logger (`request_id`, `session_id` bound). */
  logger: Logger;
  /** The session's tool id map (a fresh one when the caller gave none). */
  toolIdMap: ToolIdMap;
  /** The caller's options, for per-call provider options. */
  options: CallOptions;
  /** The provider key of the requested model (`parseModelId(request.model).provider`). */
  modelProvider: string;
}

/** One attempt of a call: the call, plus the signal to hand the HTTP client. */
export interface WireAttempt extends WireCall {
  /** Aborts on cancel, the caller's signal, or the attempt's deadline. */
  signal: AbortSignal;
  /** 1 for the first attempt. */
  attempt: number;
}

/** A decoded whole reply, in canonical terms; the template assembles the response around it. */
export interface DecodedReply {
  content: ContentBlock[];
  stop_reason: StopReason;
  /** `null` when the provider sent none: the template estimates it (flagged, with a WARN). */
  usage: TokenUsage | null;
  provider_raw?: Record<string, unknown> | null;
  /** The provider's own id of the reply, when it sent one. */
  provider_response_id?: string | null;
  /** The model that answered, as a canonical id, when the provider named it. */
  served_model?: string | null;
  /** The provider's refusal text, when it sends one apart from the content. */
  refusal?: string | null;
}

/** Maps a provider's stream chunks to canonical events through the call's builder. */
export type ChunkMapper<Chunk> = (chunk: Chunk, builder: StreamBuilder) => StreamEvent[];

/**
 * The one shape of an adapter over a provider's wire protocol: the `complete()` / `stream()`
 * skeleton lives here once (request checks, deadlines, retries, cancellation, the stream error
 * contract, response assembly, usage estimates when the provider sends none); an adapter
 * supplies what differs between providers: `encode` (canonical → wire, after `prepareHistory`),
 * `send` and `open` (its SDK's calls), `decode` (wire reply → canonical), `chunkMapper`, and
 * `toAdapterError`.
 */
export abstract class WireAdapter<Encoded, Reply, Chunk> extends AdapterBase {
  /** Canonical request → wire request. Pure; throws `InvalidRequestError` for what cannot be sent. */
  protected abstract encode(call: WireCall): Encoded;

  /** Sends one non-streaming request and resolves with the provider's reply. */
  protected abstract send(encoded: Encoded, attempt: WireAttempt): Promise<Reply>;

  /**
   * Opens one stream and resolves once the provider accepted it (response headers): the SDK's
   * parsed stream, or the response body for core to read ({@link WireBody}, the faster path).
   */
  protected abstract open(
    encoded: Encoded,
    attempt: WireAttempt,
  ): Promise<AsyncIterable<Chunk> | WireBody<Chunk>>;

  /** The provider's whole reply → canonical content, stop reason, usage and round-trip data. */
  protected abstract decode(reply: Reply, encoded: Encoded, call: WireCall): DecodedReply;

  /** A mapper for one stream's chunks (it may keep state across them). */
  protected abstract chunkMapper(encoded: Encoded, call: WireCall): ChunkMapper<Chunk>;

  /** Maps anything the SDK throws to an `AdapterError` (classification, `retry-after`, redaction). */
  protected abstract toAdapterError(error: unknown, request: CanonicalRequest): AdapterError;

  /**
   * How the stream runner treats this provider's chunks: which chunk starts the message (an
   * adapter's own end marker does not), and whether parallel tool calls end only at the finish.
   */
  protected streamTraits(): Pick<StreamCallSpec<Chunk>, 'startsMessage' | 'toolCallsEndAtFinish'> {
    return {};
  }

  /** Non-streaming call, through the call runner. */
  complete(request: CanonicalRequestInput, options: CallOptions = {}): Promise<CanonicalResponse> {
    const toolIdMap = options.toolIdMap ?? new ToolIdMap();
    return runCompleteCall(this.#setup(), request, options, async (context) => {
      const call = this.#call(context, options, toolIdMap);
      const encoded = this.encode(call);
      const started = Date.now();
      const reply = await this.send(encoded, {
        ...call,
        signal: context.signal,
        attempt: context.attempt,
      });
      const decoded = this.decode(reply, encoded, call);
      return this.#response(call, decoded, Date.now() - started);
    });
  }

  /** Streaming call, as canonical events, through the call runner. */
  stream(request: CanonicalRequestInput, options: CallOptions = {}): AsyncIterable<StreamEvent> {
    const toolIdMap = options.toolIdMap ?? new ToolIdMap();
    const spec = new WireStreamSpec<Chunk>(async (context) => {
      const call = this.#call(context, options, toolIdMap);
      const encoded = this.encode(call);
      spec.map = this.chunkMapper(encoded, call);
      return this.open(encoded, { ...call, signal: context.signal, attempt: context.attempt });
    }, this.streamTraits());
    return runStreamCall<Chunk>(this.#setup(), request, options, spec);
  }

  #setup() {
    return this.callSetup((error, request) => this.toAdapterError(error, request));
  }

  #call(context: CallAttemptContext, options: CallOptions, toolIdMap: ToolIdMap): WireCall {
    this.checkRequest(context.request);
    return {
      request: context.request,
      logger: context.logger,
      toolIdMap,
      options,
      modelProvider: parseModelId(context.request.model).provider,
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

  constructor(
    open: StreamCallSpec<Chunk>['open'],
    traits: Pick<StreamCallSpec<Chunk>, 'startsMessage' | 'toolCallsEndAtFinish'>,
  ) {
    this.open = open;
    this.startsMessage = traits.startsMessage;
    this.toolCallsEndAtFinish = traits.toolCallsEndAtFinish === true;
  }

  onChunk(chunk: Chunk, builder: StreamBuilder): StreamEvent[] {
    return this.map ? this.map(chunk, builder) : [];
  }
}
