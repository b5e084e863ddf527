import { type Logger, silentLogger } from '../logger.js';
import type { StopReason, TokenUsage } from '../schemas/adapter.js';
import type { ContentBlock } from '../schemas/content.js';
import type {
  MessageCompleteEvent,
  MessageStartEvent,
  StreamEvent,
  ToolUseEndEvent,
} from '../schemas/stream.js';
import { StreamAccumulator } from './accumulator.js';

/** A provider's handle for a block: its content-block index, a tool-call index, or a label. */
export type ProviderBlockKey = string | number;

/** Options of {@link StreamBuilder}. */
export interface StreamBuilderOptions {
  request_id: string;
  /** Canonical model id that serves the call. */
  model: string;
  /** Adapter name. */
  provider: string;
  /** Where malformed tool input JSON is reported. */
  logger?: Logger;
  /** Clock in ms, for `latency_ms`. Default `Date.now`. */
  now?: () => number;
  /** When the call started (ms on `now`'s clock). Default: construction time. */
  startedAt?: number;
}

type OpenBlock =
  | { kind: 'text' | 'thinking'; index: number }
  | { kind: 'tool'; index: number; toolUseId: string; json: string; ended: boolean }
  | { kind: 'whole'; index: number };

/**
 * Turns provider stream chunks into a canonical event sequence that satisfies the stream
 * invariants by construction. Adapters call it with what each chunk means; it assigns dense,
 * non-decreasing `content_block_index` values (a block resumed after another block opened gets
 * a new index), ends an open tool use when the next block opens, accumulates raw tool input
 * fragments, and closes the stream the same way for completion, cancellation and errors.
 *
 * Each method returns the events to yield, in order.
 */
export class StreamBuilder {
  readonly #options: StreamBuilderOptions;
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #startedAt: number;
  readonly #accumulator = new StreamAccumulator();
  readonly #blocks = new Map<ProviderBlockKey, OpenBlock>();
  #latest: OpenBlock | undefined;
  #nextIndex = 0;
  #started = false;
  #finished = false;
  #usage: TokenUsage = {
    input_tokens: 0,
    output_tokens: 0,
    cached_input_tokens: 0,
    cache_creation_input_tokens: 0,
  };

  constructor(options: StreamBuilderOptions) {
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
    this.#now = options.now ?? Date.now;
    this.#startedAt = options.startedAt ?? this.#now();
  }

  /** Whether `message.start` has been produced (an error after it must end the stream). */
  get started(): boolean {
    return this.#started;
  }

  /** Whether `message.complete` has been produced. */
  get finished(): boolean {
    return this.#finished;
  }

  /** Usage gathered so far. */
  get usage(): TokenUsage {
    return { ...this.#usage };
  }

  /** The content built so far. */
  content(): ContentBlock[] {
    return this.#accumulator.content();
  }

  /** The `message.start` event. */
  start(): MessageStartEvent {
    this.#started = true;
    return {
      type: 'message.start',
      request_id: this.#options.request_id,
      model: this.#options.model,
      provider: this.#options.provider,
    };
  }

  /** Merges usage figures as they arrive (e.g. input at the start, output at the end). */
  updateUsage(update: Partial<TokenUsage>): void {
    for (const [key, value] of Object.entries(update) as Array<[keyof TokenUsage, unknown]>) {
      if (value !== undefined && value !== null)
        (this.#usage as Record<string, unknown>)[key] = value;
    }
  }

  /** A piece of text for the provider's block `key`. Empty text yields nothing. */
  text(key: ProviderBlockKey, text: string): StreamEvent[] {
    if (text === '') return [];
    const [events, block] = this.#blockFor(key, 'text');
    return this.#emit(events, { type: 'text.delta', content_block_index: block.index, text });
  }

  /** A piece of thinking; pass `signature` with the block's last piece when the provider signs. */
  thinking(key: ProviderBlockKey, text: string, signature?: string): StreamEvent[] {
    if (text === '' && signature === undefined) return [];
    const [events, block] = this.#blockFor(key, 'thinking');
    return this.#emit(events, {
      type: 'thinking.delta',
      content_block_index: block.index,
      text,
      ...(signature === undefined ? {} : { signature }),
    });
  }

  /** A tool use begins. `toolUseId` is canonical (from the session's ToolIdMap). */
  toolStart(key: ProviderBlockKey, toolUseId: string, toolName: string): StreamEvent[] {
    const events = this.#closeLatestTool();
    const block: OpenBlock = {
      kind: 'tool',
      index: this.#allocate(),
      toolUseId,
      json: '',
      ended: false,
    };
    this.#blocks.set(key, block);
    this.#latest = block;
    return this.#emit(events, {
      type: 'tool.use_start',
      content_block_index: block.index,
      tool_use_id: toolUseId,
      tool_name: toolName,
    });
  }

  /**
   * A raw fragment of a tool's input. Emitted as is when the tool is the latest block; a
   * fragment for an earlier, still-open tool is accumulated without an event (emitting it would
   * break index order) and counts toward its final input.
   */
  toolInput(key: ProviderBlockKey, fragment: string): StreamEvent[] {
    const block = this.#blocks.get(key);
    if (block?.kind !== 'tool' || fragment === '') return [];
    if (block.ended) {
      this.#logger.warn(
        {
          event: 'late_tool_input',
          request_id: this.#options.request_id,
          tool_use_id: block.toolUseId,
        },
        'tool input arrived after its tool use ended; ignored',
      );
      return [];
    }
    block.json += fragment;
    if (block !== this.#latest) return [];
    return this.#emit([], {
      type: 'tool.use_input_delta',
      content_block_index: block.index,
      tool_use_id: block.toolUseId,
      partial_json: fragment,
    });
  }

  /**
   * A tool use is complete. `authoritativeInput` is the provider's parsed input when it sends
   * one; otherwise the accumulated fragments are parsed (`{}` if they do not parse, with a WARN).
   */
  toolEnd(key: ProviderBlockKey, authoritativeInput?: Record<string, unknown>): StreamEvent[] {
    const block = this.#blocks.get(key);
    if (block?.kind !== 'tool' || block.ended) return [];
    return [this.#endTool(block, authoritativeInput, true)];
  }

  /** A block the provider sends whole, without deltas (e.g. redacted thinking). */
  wholeBlock(key: ProviderBlockKey, content: ContentBlock): StreamEvent[] {
    const events = this.#closeLatestTool();
    const block: OpenBlock = { kind: 'whole', index: this.#allocate() };
    this.#blocks.set(key, block);
    this.#latest = block;
    this.#accumulator.setBlock(block.index, content);
    return events;
  }

  /**
   * Ends the stream normally: `tool.use_end` for every open tool use, then `message.complete`.
   */
  complete(stopReason: StopReason, providerRaw?: Record<string, unknown> | null): StreamEvent[] {
    return this.#finish(stopReason, providerRaw, true);
  }

  /**
   * Ends an interrupted stream (`cancelled` or `error`): every open tool use ends with whatever
   * JSON parses cleanly from its fragments (or `{}`), then `message.complete` with the partial
   * content. Produces nothing if the stream already finished.
   */
  interrupt(stopReason: 'cancelled' | 'error'): StreamEvent[] {
    return this.#finish(stopReason, null, false);
  }

  #finish(
    stopReason: StopReason,
    providerRaw: Record<string, unknown> | null | undefined,
    warnOnBadJson: boolean,
  ): StreamEvent[] {
    if (this.#finished) return [];
    const events: StreamEvent[] = this.#started ? [] : [this.start()];
    for (const block of this.#blocks.values()) {
      if (block.kind === 'tool' && !block.ended)
        events.push(this.#endTool(block, undefined, warnOnBadJson));
    }
    this.#finished = true;
    const complete: MessageCompleteEvent = {
      type: 'message.complete',
      request_id: this.#options.request_id,
      final_content: this.#accumulator.content(),
      stop_reason: stopReason,
      usage: this.usage,
      latency_ms: Math.max(0, Math.round(this.#now() - this.#startedAt)),
      ...(providerRaw ? { provider_raw: providerRaw } : {}),
    };
    events.push(complete);
    return events;
  }

  #endTool(
    block: Extract<OpenBlock, { kind: 'tool' }>,
    authoritativeInput: Record<string, unknown> | undefined,
    warnOnBadJson: boolean,
  ): ToolUseEndEvent {
    block.ended = true;
    let finalInput = authoritativeInput;
    if (finalInput === undefined) {
      finalInput = {};
      if (block.json.trim() !== '') {
        try {
          const parsed: unknown = JSON.parse(block.json);
          if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
            finalInput = parsed as Record<string, unknown>;
          } else if (warnOnBadJson) {
            this.#warnBadJson(block, 'tool input is not a JSON object');
          }
        } catch {
          if (warnOnBadJson) this.#warnBadJson(block, 'tool input is not valid JSON');
        }
      }
    }
    const event: ToolUseEndEvent = {
      type: 'tool.use_end',
      content_block_index: block.index,
      tool_use_id: block.toolUseId,
      final_input: finalInput,
    };
    this.#accumulator.push(event);
    return event;
  }

  #warnBadJson(block: Extract<OpenBlock, { kind: 'tool' }>, reason: string): void {
    this.#logger.warn(
      {
        event: 'tool_input_invalid',
        request_id: this.#options.request_id,
        tool_use_id: block.toolUseId,
        raw_length: block.json.length,
      },
      `${reason}; using {}`,
    );
  }

  #blockFor(key: ProviderBlockKey, kind: 'text' | 'thinking'): [StreamEvent[], OpenBlock] {
    const existing = this.#blocks.get(key);
    if (existing && existing.kind === kind && existing === this.#latest) return [[], existing];
    const events = this.#closeLatestTool();
    const block: OpenBlock = { kind, index: this.#allocate() };
    this.#blocks.set(key, block);
    this.#latest = block;
    return [events, block];
  }

  #closeLatestTool(): StreamEvent[] {
    const latest = this.#latest;
    if (latest?.kind === 'tool' && !latest.ended) return [this.#endTool(latest, undefined, true)];
    return [];
  }

  #allocate(): number {
    return this.#nextIndex++;
  }

  #emit(prefix: StreamEvent[], event: StreamEvent): StreamEvent[] {
    this.#accumulator.push(event);
    prefix.push(event);
    return prefix;
  }
}
