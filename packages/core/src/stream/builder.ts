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
import { HeldBlocks, type ProviderBlockKey } from './held-blocks.js';
import { ReplyFacts } from './reply-facts.js';
import { readToolInputJson, warnToolInputInvalid } from './tool-input.js';

export type { ProviderBlockKey } from './held-blocks.js';

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
  /**
   * The provider may interleave the argument fragments of parallel tool calls and says they are
   * done only at the finish (Chat Completions). Then a tool use stays open until `toolEnd` or
   * the finish, and blocks that begin while it is open are held back and emitted after it ends,
   * so late fragments are folded in and indexes still never decrease.
   */
  toolCallsEndAtFinish?: boolean;
}

type OpenBlock =
  | { kind: 'text' | 'thinking'; index: number }
  | { kind: 'tool'; index: number; toolUseId: string; json: string; ended: boolean }
  | { kind: 'whole'; index: number };

/**
 * Turns provider stream chunks into a canonical event sequence that satisfies the stream
 * invariants by construction. Adapters call it with what each chunk means; it assigns dense,
 * non-decreasing `content_block_index` values (a block resumed after another block opened gets
 * a new index), ends an open tool use when the next block opens (or, with
 * `toolCallsEndAtFinish`, holds the next block back until the tool use ends, so fragments that
 * arrive late still fold into their tool's input), accumulates raw tool input fragments, and
 * closes the stream the same way for completion, cancellation and errors.
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
  readonly #held = new HeldBlocks();
  readonly #facts = new ReplyFacts();
  #nextIndex = 0;
  #started = false;
  #finished = false;
  #completion: MessageCompleteEvent | null = null;

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

  /** The `message.complete` event produced, once the stream has finished. */
  get completion(): MessageCompleteEvent | null {
    return this.#completion;
  }

  /** Whether the provider reported any usage yet (`updateUsage` was called). */
  get usageReported(): boolean {
    return this.#facts.usageReported;
  }

  /** Usage gathered so far. */
  get usage(): TokenUsage {
    return { ...this.#facts.usage };
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

  /**
   * Records the model that answered, as a canonical id, when the provider names it (it goes on
   * `message.complete.served_model`). Empty or `null` leaves it unknown.
   */
  servedModel(model: string | null | undefined): void {
    if (model) this.#facts.servedModel = model;
  }

  /**
   * Records the provider's own id of the reply (it goes on
   * `message.complete.provider_response_id`). Empty or `null` leaves it unknown.
   */
  providerResponseId(id: string | null | undefined): void {
    if (id) this.#facts.responseId = id;
  }

  /**
   * A piece of the provider's refusal explanation (OpenAI's `refusal` field): streamed as text of
   * block `key`, and also collected for `message.complete.refusal`.
   */
  refusal(key: ProviderBlockKey, text: string): StreamEvent[] {
    this.#facts.refusal += text;
    return this.text(key, text);
  }

  /** Merges usage figures as they arrive (e.g. input at the start, output at the end). */
  updateUsage(update: Partial<TokenUsage>): void {
    this.#facts.updateUsage(update);
  }

  /** A piece of text for the provider's block `key`. Empty text yields nothing. */
  text(key: ProviderBlockKey, text: string): StreamEvent[] {
    if (text === '') return [];
    const latest = this.#latest;
    if (latest?.kind === 'text' && this.#held.empty && this.#blocks.get(key) === latest) {
      // more text for the open text block: no block to open, close or hold back
      const event: StreamEvent = { type: 'text.delta', content_block_index: latest.index, text };
      this.#accumulator.push(event);
      return [event];
    }
    if (this.#hold(key, 'text', () => this.text(key, text))) return [];
    const [events, block] = this.#blockFor(key, 'text');
    return this.#emit(events, { type: 'text.delta', content_block_index: block.index, text });
  }

  /** A piece of thinking; pass `signature` with the block's last piece when the provider signs. */
  thinking(key: ProviderBlockKey, text: string, signature?: string): StreamEvent[] {
    if (text === '' && signature === undefined) return [];
    if (this.#hold(key, 'thinking', () => this.thinking(key, text, signature))) return [];
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
    if (this.#hold(key, 'tool', () => this.toolStart(key, toolUseId, toolName))) return [];
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
   * A raw fragment of a tool's input, emitted as is. A fragment for a tool use that already
   * ended is dropped with a WARN (`late_tool_input`): use `toolCallsEndAtFinish` for providers
   * that interleave the fragments of parallel calls.
   */
  toolInput(key: ProviderBlockKey, fragment: string): StreamEvent[] {
    if (this.#held.has(key)) {
      if (fragment !== '') this.#held.append(key, () => this.toolInput(key, fragment));
      return [];
    }
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
    if (this.#held.append(key, () => this.toolEnd(key, authoritativeInput))) return [];
    const block = this.#blocks.get(key);
    if (block?.kind !== 'tool' || block.ended) return [];
    const events: StreamEvent[] = [this.#endTool(block, authoritativeInput, true)];
    return this.#release(events);
  }

  /** A block the provider sends whole, without deltas (e.g. redacted thinking). */
  wholeBlock(key: ProviderBlockKey, content: ContentBlock): StreamEvent[] {
    if (this.#hold(key, 'whole', () => this.wholeBlock(key, content))) return [];
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

  /**
   * The blocks held back behind an open tool use (`toolCallsEndAtFinish`), released a step at a
   * time (the open tool use ended, then each held call replayed), for a stream that ended early:
   * a consumer that stops reading leaves the rest unreleased, and a later
   * `interrupt('cancelled')` drops them, so `final_content` is the fold of what it read.
   */
  *releaseHeld(): Generator<StreamEvent[], void, undefined> {
    if (!this.#finished) yield* this.#releaseSteps(false);
  }

  #finish(
    stopReason: StopReason,
    providerRaw: Record<string, unknown> | null | undefined,
    warnOnBadJson: boolean,
  ): StreamEvent[] {
    if (this.#finished) return [];
    const events: StreamEvent[] = this.#started ? [] : [this.start()];
    // a cancelled stream's held blocks were never delivered: they are not part of the reply
    if (stopReason === 'cancelled') this.#held.takeAll();
    for (const step of this.#releaseSteps(warnOnBadJson)) {
      for (const event of step) events.push(event);
    }
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
      ...this.#facts.completionFields(),
    };
    this.#completion = complete;
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
      const reading = readToolInputJson(block.json);
      finalInput = reading.input;
      if (reading.problem && warnOnBadJson) {
        warnToolInputInvalid(this.#logger, this.#options.request_id, block, reading.problem);
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

  #blockFor(key: ProviderBlockKey, kind: 'text' | 'thinking'): [StreamEvent[], OpenBlock] {
    const existing = this.#blocks.get(key);
    if (existing && existing.kind === kind && existing === this.#latest) return [[], existing];
    const events = this.#closeLatestTool();
    const block: OpenBlock = { kind, index: this.#allocate() };
    this.#blocks.set(key, block);
    this.#latest = block;
    return [events, block];
  }

  /**
   * With `toolCallsEndAtFinish`, defers a call that would begin a new block while a tool use is
   * open (or while earlier blocks are held): returns true when `op` was held for later.
   */
  #hold(key: ProviderBlockKey, kind: OpenBlock['kind'], op: () => StreamEvent[]): boolean {
    if (!this.#options.toolCallsEndAtFinish) return false;
    if (this.#held.append(key, op)) return true;
    const latest = this.#latest;
    const toolOpen = latest?.kind === 'tool' && !latest.ended;
    if (!toolOpen && this.#held.empty) return false;
    // more text or thinking for the open block itself is not a new block
    const existing = this.#blocks.get(key);
    if (existing && existing === latest && existing.kind === kind) return false;
    this.#held.begin(key, op);
    return true;
  }

  /** Replays the held blocks in order once no tool use is open; appends their events. */
  #release(events: StreamEvent[]): StreamEvent[] {
    const latest = this.#latest;
    if (this.#held.empty || (latest?.kind === 'tool' && !latest.ended)) return events;
    for (const op of this.#held.takeAll()) events.push(...op());
    return events;
  }

  /** Held blocks in order, each open tool use ending before the next block is released. */
  *#releaseSteps(warnOnBadJson: boolean): Generator<StreamEvent[], void, undefined> {
    for (;;) {
      const latest = this.#latest;
      if (latest?.kind === 'tool' && !latest.ended) {
        yield [this.#endTool(latest, undefined, warnOnBadJson)];
      } else if (this.#held.empty) return;
      for (const op of this.#held.takeAll()) yield op();
    }
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
