import type { CallOptions } from './adapter.js';
import type { AdapterContext } from './adapter-frame.js';
import type { StreamCallSpec } from './call-shared.js';
import type { AdapterError } from './errors.js';
import type { HistoryMemo } from './history-memo.js';
import type { Logger } from './logger.js';
import type {
  AdapterCapabilities,
  CanonicalRequest,
  StopReason,
  TokenUsage,
} from './schemas/adapter.js';
import type { ContentBlock } from './schemas/content.js';
import type { Message } from './schemas/message.js';
import type { StreamEvent } from './schemas/stream.js';
import type { ToolDefinition } from './schemas/tool.js';
import type { StreamBuilder } from './stream/builder.js';
import type { WireBody } from './stream/wire-body.js';
import type { ToolIdMap } from './tool-id-map.js';

/** What one call of a `WireAdapter` knows besides the wire request. */
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
  /** The requested model's wire name. */
  wireName: string;
  /** The requested model's capabilities, configured overrides applied (what the encoder respects). */
  capabilities: AdapterCapabilities;
  /**
   * The adapter's memory of prepared histories (decision 0165), owned by the `WireAdapter` for
   * its lifetime: a codec passes it to `prepareHistory` and keeps none of its own.
   */
  historyMemo: HistoryMemo;
}

/** One attempt of a call: the call, plus the signal to hand the HTTP client. */
export interface WireAttempt extends WireCall {
  /** Aborts on cancel, the caller's signal, or the attempt's deadline. */
  signal: AbortSignal;
  /** 1 for the first attempt. */
  attempt: number;
}

/** A decoded whole reply, in canonical terms; the adapter assembles the response around it. */
export interface DecodedReply {
  content: ContentBlock[];
  stop_reason: StopReason;
  /** `null` when the provider sent none: the adapter estimates it (flagged, with a WARN). */
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
 * How the stream runner treats a provider's chunks: which chunk starts the message (an adapter's
 * own end marker does not), and whether parallel tool calls end only at the finish.
 */
export type StreamTraits<Chunk> = Pick<
  StreamCallSpec<Chunk>,
  'startsMessage' | 'toolCallsEndAtFinish'
>;

/**
 * The codec part of a wire adapter: canonical ↔ wire, with no I/O. Pure apart from the call's
 * logger and tool id map; throws `InvalidRequestError` for what cannot be sent.
 */
export interface WireCodec<Encoded, Reply, Chunk> {
  /** Canonical request → wire request. */
  encode(call: WireCall): Encoded;
  /** The provider's whole reply → canonical content, stop reason, usage and round-trip data. */
  decode(reply: Reply, encoded: Encoded, call: WireCall): DecodedReply;
  /** A mapper for one stream's chunks (it may keep state across them). */
  chunkMapper(encoded: Encoded, call: WireCall): ChunkMapper<Chunk>;
  /** How the stream runner treats this wire's chunks (default: neither trait). */
  readonly streamTraits?: StreamTraits<Chunk>;
}

/**
 * The transport part of a wire adapter: the provider's SDK (or `fetch`) calls, each honouring
 * the attempt's signal (deadlines, cancellation), and its errors mapped.
 */
export interface WireTransport<Encoded, Reply, Chunk> {
  /** Sends one non-streaming request and resolves with the provider's reply. */
  send(encoded: Encoded, attempt: WireAttempt): Promise<Reply>;
  /**
   * Opens one stream and resolves once the provider accepted it (response headers): the SDK's
   * parsed stream, or the response body for core to read ({@link WireBody}, the faster path).
   */
  open(encoded: Encoded, attempt: WireAttempt): Promise<AsyncIterable<Chunk> | WireBody<Chunk>>;
  /** Maps anything the SDK throws to an `AdapterError` (classification, `retry-after`, redaction). */
  toAdapterError(error: unknown, request: CanonicalRequest): AdapterError;
  /**
   * The base URL calls go to, for telemetry's `server.address` (default: `base_url`). A
   * transport whose SDK has a default host (or reads one from the environment) returns it.
   */
  serverUrl?(): string | undefined;
  /** Why no call can be made as configured (a missing key, named, never quoted); `null` when ready. */
  setupProblem?(): string | null;
}

/** The model facts part of a wire adapter: the default model and what each model can do. */
export interface WireModels {
  /** Canonical id of the model whose capabilities `adapter.capabilities` reports. */
  readonly defaultModel: string;
  /** The capabilities the adapter declares for a model (by wire name), before overrides. */
  capabilities(wireName: string, model: string): AdapterCapabilities;
  /**
   * The capabilities with the configured overrides applied, for a provider that applies them
   * its own way (default: the override by canonical id, else wire name, over `capabilities`).
   */
  overridden?(model: string, wireName: string): AdapterCapabilities;
  /** Input-token estimate without calling the provider (default: core's heuristic). */
  estimateInputTokens?(
    messages: readonly Message[],
    tools: readonly ToolDefinition[],
    system_prompt: string | null | undefined,
  ): number;
}

/** The three parts a `WireAdapter` is assembled from. */
export interface WireParts<Encoded, Reply, Chunk> {
  codec: WireCodec<Encoded, Reply, Chunk>;
  transport: WireTransport<Encoded, Reply, Chunk>;
  models: WireModels;
}

/** Who a `WireAdapter` is, before its configuration is read. */
export interface WireProvider {
  /** Adapter name and provider key (`anthropic`, `groq`, ...). */
  name: string;
  /** The provider's name for people, in error messages (default: `name`). */
  label?: string;
}

/** Builds an adapter's parts from its validated configuration (run once, at construction). */
export type WireAssembly<Encoded, Reply, Chunk> = (
  context: AdapterContext,
) => WireParts<Encoded, Reply, Chunk>;
