import { assertNever } from '@yourtool/core';
import { STRUCTURED_OUTPUT_TOOL } from '@yourtool/core/adapter';
import type { SessionEvent, TurnResult } from '@yourtool/session';
import { money, oneLine } from '../format.js';
import type { CliIo } from '../io.js';
import { showObject } from '../objects.js';
import { type Progress, startProgress } from '../progress.js';

/** The chat's stdout, keeping track of whether the cursor is at the start of a line. */
export class Screen {
  readonly #io: CliIo;
  #atLineStart = true;

  constructor(io: CliIo) {
    this.#io = io;
  }

  /** Writes conversation text (stdout). */
  write(text: string): void {
    if (text === '') return;
    this.#io.stdout.write(text);
    this.#atLineStart = text.endsWith('\n');
  }

  /** Writes a whole line on stdout, on a line of its own. */
  line(text: string): void {
    this.lineBreak();
    this.write(`${text}\n`);
  }

  /** A notice on stderr, on a line of its own. */
  notice(text: string): void {
    this.lineBreak();
    this.#io.stderr.write(`${text}\n`);
  }

  /** Ends the current stdout line, if one is open. */
  lineBreak(): void {
    if (!this.#atLineStart) this.write('\n');
  }
}

/** Shows one turn's events as they come: streamed text, tools, fallbacks, the cost at the end. */
export class TurnRenderer {
  readonly #screen: Screen;
  readonly #io: CliIo;
  #progress: Progress | undefined;
  #model: string | null = null;
  /** Whether the progress says the object is arriving (a reply's first partial object came). */
  #receiving = false;

  constructor(screen: Screen, io: CliIo) {
    this.#screen = screen;
    this.#io = io;
  }

  /** The model of the turn's last call, once routed. */
  get model(): string | null {
    return this.#model;
  }

  #waiting(label: string): void {
    this.#progress?.stop();
    this.#progress = startProgress(this.#io.stderr, label);
  }

  /** Stops the "waiting for the model" progress (before a prompt, or at the end). */
  quiet(): void {
    this.#progress?.stop();
    this.#progress = undefined;
  }

  /** Shows one event of `SessionManager.send()`. */
  event(event: SessionEvent): void {
    const screen = this.#screen;
    switch (event.type) {
      case 'session.routed':
        this.#model = event.model;
        this.#receiving = false;
        this.#waiting(`waiting for ${event.model}`);
        return;
      case 'text.delta':
        this.quiet();
        screen.write(event.text);
        return;
      case 'object.partial':
        // the object is shown whole, indented, once it validated; meanwhile how far it got
        if (!this.#receiving) this.#waiting(`receiving the object from ${event.model}`);
        this.#receiving = true;
        return;
      case 'object.invalid':
        this.quiet();
        this.#receiving = false;
        screen.notice(
          `(${event.model}: ${oneLine(event.error.message, 200)}${event.will_repair ? '; asking again' : ''})`,
        );
        return;
      case 'session.attempt':
        if (event.phase === 'failed' && event.will_retry) {
          const wait = Math.ceil((event.delay_ms ?? 0) / 1000);
          screen.notice(`(${event.model}: ${event.error_class}; retrying in ${wait}s)`);
        }
        return;
      case 'session.fallback':
        this.quiet();
        screen.notice(
          `(${event.from} failed: ${oneLine(event.reason, 120)}; continuing on ${event.to})`,
        );
        return;
      case 'session.compacted':
        screen.notice('(older turns were summarized to fit the context window)');
        return;
      case 'session.tool_started':
        this.quiet();
        screen.line(`→ ${event.tool_name} ${oneLine(JSON.stringify(event.input), 160)}`);
        return;
      case 'session.tool_result':
        // the forced output tool's result is the object, shown whole at the turn's end
        if (event.tool_name !== STRUCTURED_OUTPUT_TOOL) this.#toolResult(event);
        return;
      case 'session.turn_complete':
        this.quiet();
        this.#complete(event.result);
        return;
      // nothing to show: the reply is its text deltas, a confirmation is asked by the prompt
      case 'message.start':
      case 'thinking.delta':
      case 'tool.use_start':
      case 'tool.use_input_delta':
      case 'tool.use_end':
      case 'message.complete':
      case 'session.user_message':
      case 'session.assistant_message':
      case 'session.confirmation_requested':
      case 'session.tool_progress':
        return;
      default:
        assertNever(event, 'session event');
    }
  }

  #toolResult(event: Extract<SessionEvent, { type: 'session.tool_result' }>): void {
    const text = event.message.content
      .flatMap((block) =>
        block.type === 'tool_result'
          ? block.content.flatMap((part) => (part.type === 'text' ? [part.text] : []))
          : [],
      )
      .join(' ');
    const status = event.is_error ? 'error: ' : '';
    this.#screen.line(`← ${event.tool_name}: ${status}${oneLine(text, 160)}`);
    this.#waiting(`waiting for ${this.#model ?? 'the model'}`);
  }

  #complete(result: TurnResult): void {
    if (result.end === 'cancelled') this.#screen.notice('(turn cancelled)');
    if (result.object !== undefined) this.#screen.line(showObject(result.object));
    const facts = [
      this.#model ?? 'no model',
      `turn ${money(result.cost_usd)}`,
      `session ${money(result.session_cost_usd)}`,
    ];
    this.#screen.line(`[${facts.join(' · ')}]`);
  }
}
