import type { Content, Part } from '@google/genai';
import type { RunTail, WrittenList } from '@yourtool/core';
import { geminiContentJson } from './wire-json.js';
import type { GeminiMessageForm } from './wire-memory.js';

/** A turn still open to parts: later messages of its role join it. */
interface OpenTurn {
  content: Content & { role: 'user' | 'model'; parts: Part[] };
  /** Its parts' JSON pieces (each joined by commas already). */
  json: string[];
  /** Whether every message it holds has a kept form (so the closed turn may be remembered). */
  kept: boolean;
}

/**
 * Assembles message forms into turns (consecutive same-role parts merge, a run of tool results'
 * images after it) on top of a remembered run (decision 0201): each turn, once a message of the
 * other role closes it, goes into the run's list with its JSON, and the run may be cut where a
 * message opens a turn (every turn before it is then complete). The open last turn is never
 * remembered: the next request's messages may join it.
 */
export class TurnWriter {
  readonly #tail: RunTail<Content> | null;
  readonly #contents: Content[];
  #open: OpenTurn | undefined;
  /** Whether a message since the last closed turn had no kept form (though it added no part). */
  #spanKept = true;
  readonly #trailing: Part[] = [];
  readonly #trailingJson: string[] = [];

  /**
   * Starts on `tail`, whose list holds the remembered (closed) turns already; null: no memory,
   * so only the contents are assembled (no JSON).
   */
  constructor(tail: RunTail<Content> | null) {
    this.#tail = tail;
    this.#contents = tail === null ? [] : tail.out;
  }

  /** The contents so far (the remembered turns, then each turn closed since). */
  get contents(): Content[] {
    return this.#contents;
  }

  /**
   * Adds message `index`'s form (`kept`: the form is remembered and so never changes), and
   * keeps its trailing images for the end of the run of tool results.
   */
  add(form: GeminiMessageForm, kept: boolean, index: number): void {
    if (form.role !== null && form.parts.length > 0) {
      const opens = this.#open === undefined || this.#open.content.role !== form.role;
      if (opens && this.#trailing.length === 0) {
        this.#close();
        // every turn before this message's is complete: the run may end here
        if (index > 0) this.#tail?.cut(index);
      }
      this.#push(form.role, form.parts, form.json);
    }
    if (!kept) {
      if (this.#open === undefined) this.#spanKept = false;
      else this.#open.kept = false;
    }
    if (form.trailing.length > 0) {
      this.#trailing.push(...form.trailing);
      this.#trailingJson.push(form.trailingJson);
    }
  }

  /** Sends the images of the tool results just added, once the results are all out. */
  flushTrailing(): void {
    if (this.#trailing.length === 0) return;
    this.#push('user', this.#trailing.splice(0), this.#trailingJson.splice(0).join(','));
  }

  /**
   * Closes the last turn (never remembered) and grows the run; how the contents are written
   * (null without a run).
   */
  finish(): WrittenList | null {
    this.flushTrailing();
    if (this.#open !== undefined) this.#open.kept = false;
    this.#close();
    return this.#tail === null ? null : this.#tail.finish();
  }

  #push(role: 'user' | 'model', parts: readonly Part[], json: string): void {
    const open = this.#open;
    if (open !== undefined && open.content.role === role) {
      open.content.parts.push(...parts);
      open.json.push(json);
      return;
    }
    this.#close();
    this.#open = { content: { role, parts: [...parts] }, json: [json], kept: this.#spanKept };
    this.#spanKept = true;
  }

  #close(): void {
    const open = this.#open;
    if (open === undefined) return;
    this.#open = undefined;
    const { content } = open;
    if (this.#tail === null) {
      this.#contents.push(content);
      return;
    }
    if (open.kept) {
      // shared by every later request that resumes the run
      Object.freeze(content.parts);
      Object.freeze(content);
    }
    this.#tail.push([content], geminiContentJson(content.role, open.json.join(',')), open.kept);
  }
}
