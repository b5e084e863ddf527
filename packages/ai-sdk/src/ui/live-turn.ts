import type { SessionEvent } from '@yourtool/session';
import { ChunkQueue } from './chunk-queue.js';
import type { UiChunk, UiProtocol } from './chunks.js';
import { replyIdFor } from './reply-ids.js';
import { TurnChunker } from './turn-chunker.js';

/**
 * A turn running in this process, rendered for whichever HTTP response is attached to it: the
 * request that started it, then, after it paused for a tool approval, the request carrying the
 * answer when it reaches this process (decision 0177). Chunks written while no response is
 * attached wait for the next one.
 */
export class LiveTurn {
  /** Aborts the turn (a client's stop). */
  readonly controller = new AbortController();
  /** Tool use ids whose approval was refused (their results become `tool-output-denied`). */
  readonly denied = new Set<string>();
  /** Resolves when the turn has ended and its last chunk is written. */
  readonly done: Promise<void>;
  readonly #chunker: TurnChunker;
  #resolveDone: () => void = () => {};
  #replyId: string | null = null;
  #queue: ChunkQueue | null = null;
  #pending: UiChunk[] = [];

  constructor(protocol: UiProtocol) {
    this.#chunker = new TurnChunker({ protocol, denied: this.denied });
    this.done = new Promise((resolve) => {
      this.#resolveDone = resolve;
    });
  }

  /** The UI id of the reply (known once the user message is stored). */
  get replyId(): string | null {
    return this.#replyId;
  }

  /** Consumes the turn's events in the background; a failure becomes an `error` chunk. */
  run(events: AsyncIterable<SessionEvent>): void {
    void this.#consume(events);
  }

  /**
   * Attaches a new HTTP response: it gets the chunks from now on (and those written while none
   * was attached). `cancel` is for its reader stopping early (the client's stop button): that
   * cancels the turn, unless the response had already ended (paused for an approval).
   */
  attach(): { chunks: AsyncIterable<UiChunk>; cancel: () => void } {
    const queue = new ChunkQueue();
    this.#queue?.close();
    this.#queue = queue;
    if (this.#replyId) queue.push({ type: 'start', messageId: this.#replyId });
    queue.push(...this.#pending);
    this.#pending = [];
    const cancel = () => {
      if (!queue.closed) this.controller.abort();
      queue.close();
    };
    return { chunks: queue, cancel };
  }

  /** Writes a tool approval request and ends the attached response: the answer comes in a new one. */
  askApproval(toolUseId: string): void {
    this.#write([...this.#chunker.approvalRequested(toolUseId), ...this.#chunker.pause()]);
    this.#queue?.close();
    this.#queue = null;
  }

  async #consume(events: AsyncIterable<SessionEvent>): Promise<void> {
    try {
      for await (const event of events) {
        if (event.type === 'session.user_message') {
          this.#replyId = replyIdFor(event.message.id);
          this.#write([
            {
              type: 'start',
              messageId: this.#replyId,
              messageMetadata: { user_message_id: event.message.id },
            },
          ]);
        }
        this.#write(this.#chunker.push(event));
      }
    } catch (error) {
      this.#write(this.#chunker.failed(error));
    } finally {
      this.#write(this.#chunker.aborted('the turn ended without a result'));
      this.#queue?.close();
      this.#queue = null;
      this.#resolveDone();
    }
  }

  #write(chunks: UiChunk[]): void {
    if (chunks.length === 0) return;
    if (this.#queue) this.#queue.push(...chunks);
    else this.#pending.push(...chunks);
  }
}
