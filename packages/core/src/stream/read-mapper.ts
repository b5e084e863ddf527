import type { CallAttemptContext, StreamCallSpec } from '../call-shared.js';
import type { StreamEvent } from '../schemas/stream.js';
import type { StreamBuilder } from './builder.js';
import type { EventPuller } from './flat-stream.js';

/**
 * Maps one network read's chunks a chunk at a time as the consumer reads their events, and stops
 * at the first chunk after the call's signal aborted: a cancellation takes effect between two
 * events, not after the whole read. A mapper's throw is kept for {@link ReadMapper.rethrow}, so
 * the events before it are delivered first.
 * @internal
 */
export class ReadMapper<Chunk> {
  readonly #spec: StreamCallSpec<Chunk>;
  readonly #builder: StreamBuilder;
  readonly #context: CallAttemptContext;
  readonly #signal: AbortSignal;
  #chunks: Chunk[] = [];
  #next = 0;
  #first: StreamEvent | undefined;
  #failure: { error: unknown } | undefined;

  /** The adapter's `spec.onChunk` maps each chunk on `builder`; `signal` is the call's. */
  constructor(
    spec: StreamCallSpec<Chunk>,
    builder: StreamBuilder,
    context: CallAttemptContext,
    signal: AbortSignal,
  ) {
    this.#spec = spec;
    this.#builder = builder;
    this.#context = context;
    this.#signal = signal;
  }

  /** The chunks of the next read, and an event to hand out before them (`message.start`). */
  load(chunks: Chunk[], first?: StreamEvent): void {
    this.#chunks = chunks;
    this.#next = 0;
    this.#first = first;
  }

  /** The next chunk's events (`null`: the read is done, the call cancelled or the mapper threw). */
  readonly pull = (): StreamEvent[] | null => {
    const first = this.#first;
    if (first !== undefined) {
      this.#first = undefined;
      return [first];
    }
    const chunks = this.#chunks;
    if (this.#next >= chunks.length || this.#builder.finished || this.#signal.aborted) return null;
    try {
      return this.#spec.onChunk(chunks[this.#next++] as Chunk, this.#builder, this.#context);
    } catch (error) {
      this.#failure = { error };
      this.#next = chunks.length;
      return null;
    }
  };

  /** Throws what the mapper threw, once its earlier events were read. */
  rethrow(): void {
    const failure = this.#failure;
    if (failure) {
      this.#failure = undefined;
      throw failure.error;
    }
  }
}

/** The builder's held blocks, a step at a time until they are out or the signal aborted. @internal */
export function heldPuller(builder: StreamBuilder, signal: AbortSignal): EventPuller<StreamEvent> {
  const steps = builder.releaseHeld();
  return () => (signal.aborted ? null : (steps.next().value ?? null));
}
