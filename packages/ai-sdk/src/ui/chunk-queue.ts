import type { UiChunk } from './chunks.js';

/**
 * An unbounded queue of chunks read by one HTTP response: the turn writes, the response
 * reads; `close()` ends the reading once what was written is read.
 */
export class ChunkQueue implements AsyncIterable<UiChunk> {
  readonly #items: UiChunk[] = [];
  #closed = false;
  #wake: (() => void) | null = null;

  /** Adds chunks (ignored once closed). */
  push(...chunks: UiChunk[]): void {
    if (this.#closed) return;
    this.#items.push(...chunks);
    this.#wake?.();
  }

  /** Ends the queue after what it holds. */
  close(): void {
    this.#closed = true;
    this.#wake?.();
  }

  /** Whether `close()` was called. */
  get closed(): boolean {
    return this.#closed;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<UiChunk> {
    for (;;) {
      const item = this.#items.shift();
      if (item) {
        yield item;
        continue;
      }
      if (this.#closed) return;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
      this.#wake = null;
    }
  }
}
