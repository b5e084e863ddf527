import type { Logger, StreamEvent } from '@yourtool/core';
import type { StreamBuilder } from '@yourtool/core/adapter';
import type OpenAI from 'openai';
import { readOpenAIContent, warnContentPartDropped } from './content-parts.js';
import { StopSequenceCutter } from './stop-sequence.js';

/**
 * The text side of one Chat Completions stream: `delta.content` (a string or typed parts: text,
 * thinking, other parts dropped with one WARN per part type) and `delta.refusal`, with emulated
 * stop sequences applied to the text.
 */
export class StreamedText {
  readonly #logger: Logger;
  readonly #provider: string;
  readonly #cutter: StopSequenceCutter | null;
  readonly #dropped = new Set<string>();
  #refused = false;

  /** Creates the text state of one stream; `stopSequences` are the emulated ones. */
  constructor(logger: Logger, provider: string, stopSequences: readonly string[]) {
    this.#logger = logger;
    this.#provider = provider;
    this.#cutter = stopSequences.length > 0 ? new StopSequenceCutter(stopSequences) : null;
  }

  /** The emulated stop sequence that ended the text, once one did. */
  get stopSequence(): string | null {
    return this.#cutter?.matched ?? null;
  }

  /** Whether an emulated stop sequence ended the reply (everything after it is discarded). */
  get stopped(): boolean {
    return this.stopSequence !== null;
  }

  /** Whether the reply carried a refusal. */
  get refused(): boolean {
    return this.#refused;
  }

  /** A delta's content and refusal, in that order. */
  delta(builder: StreamBuilder, delta: OpenAI.ChatCompletionChunk.Choice.Delta): StreamEvent[] {
    const events: StreamEvent[] = [];
    for (const piece of readOpenAIContent(delta.content)) {
      if (piece.kind === 'text') events.push(...this.#text(builder, piece.text));
      else if (piece.kind === 'thinking') {
        events.push(...this.flush(builder), ...builder.thinking('thinking', piece.text));
      } else if (!this.#dropped.has(piece.partType)) {
        this.#dropped.add(piece.partType);
        warnContentPartDropped(this.#logger, this.#provider, piece.partType, true);
      }
    }
    if (typeof delta.refusal === 'string' && delta.refusal !== '' && !this.stopped) {
      // a refusal is not cut at stop sequences: held-back text goes out first, then all of it
      this.#refused = true;
      events.push(...this.flush(builder), ...builder.refusal('text', delta.refusal));
    }
    return events;
  }

  /** Releases text held back as the possible start of a stop sequence. */
  flush(builder: StreamBuilder): StreamEvent[] {
    return this.#cutter ? builder.text('text', this.#cutter.flush()) : [];
  }

  #text(builder: StreamBuilder, piece: string): StreamEvent[] {
    return builder.text('text', this.#cutter ? this.#cutter.push(piece) : piece);
  }
}
