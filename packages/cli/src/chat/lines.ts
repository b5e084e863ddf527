import { createInterface, type Interface } from 'node:readline';
import type { InputStream, OutputStream } from '../io.js';

/**
 * Lines typed by the user, asked for one at a time: the chat prompt and the tool confirmations
 * read from the same queue, in order. Works on a terminal (readline edits the line, with the
 * prompt) and on a pipe (lines that arrive early wait in the queue).
 */
export class LineReader {
  readonly #rl: Interface;
  readonly #output: OutputStream;
  readonly #terminal: boolean;
  readonly #queue: string[] = [];
  #waiter: ((line: string | null) => void) | undefined;
  #closed = false;

  /** `onInterrupt` receives Ctrl-C typed on a terminal (readline catches it there). */
  constructor(input: InputStream, output: OutputStream, onInterrupt: () => void) {
    this.#output = output;
    this.#terminal = input.isTTY === true && output.isTTY === true;
    this.#rl = createInterface({
      input,
      ...(this.#terminal ? { output: output as NodeJS.WritableStream, terminal: true } : {}),
    });
    this.#rl.on('line', (line) => {
      const waiter = this.#waiter;
      this.#waiter = undefined;
      if (waiter) waiter(line);
      else this.#queue.push(line);
    });
    this.#rl.on('close', () => {
      this.#closed = true;
      const waiter = this.#waiter;
      this.#waiter = undefined;
      waiter?.(null);
    });
    this.#rl.on('SIGINT', onInterrupt);
  }

  /**
   * Shows `prompt` and resolves to the next line, or `null` at the end of the input. With a
   * signal, an abort resolves it to `null` too (and the line typed after goes to the next ask).
   */
  next(prompt: string, signal?: AbortSignal): Promise<string | null> {
    const queued = this.#queue.shift();
    if (this.#terminal) {
      this.#rl.setPrompt(prompt);
      if (queued === undefined) this.#rl.prompt();
    } else {
      this.#output.write(prompt);
    }
    if (queued !== undefined) {
      if (!this.#terminal) this.#output.write(`${queued}\n`);
      return Promise.resolve(queued);
    }
    if (this.#closed || signal?.aborted) {
      if (!this.#terminal) this.#output.write('\n');
      return Promise.resolve(null);
    }
    return new Promise((resolve) => {
      const onAbort = () => {
        if (this.#waiter !== settle) return;
        this.#waiter = undefined;
        this.#output.write('\n');
        resolve(null);
      };
      const settle = (line: string | null) => {
        signal?.removeEventListener('abort', onAbort);
        // off a terminal nothing shows what was typed: echo it, so stdout reads as a transcript
        if (!this.#terminal) this.#output.write(`${line ?? ''}\n`);
        resolve(line);
      };
      this.#waiter = settle;
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Clears what is typed at the prompt and shows the prompt again (terminal only). */
  redrawPrompt(): void {
    if (!this.#terminal) return;
    this.#rl.write(null, { ctrl: true, name: 'u' });
    this.#rl.prompt();
  }

  /** Stops reading. */
  close(): void {
    this.#rl.close();
  }
}
