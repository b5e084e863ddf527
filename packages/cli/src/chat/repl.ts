import { resolve } from 'node:path';
import {
  isCancelledError,
  type JsonSchemaObject,
  type RouteTraceEntry,
  type SessionRecord,
} from '@yourtool/core';
import type { Runtime } from '@yourtool/runtime';
import { type ConfirmHook, parseUserInput } from '@yourtool/session';
import type { SqlSessionStore } from '@yourtool/store';
import { type ModelOptions, openCliRuntime } from '../config.js';
import type { CommandContext } from '../context.js';
import { money, oneLine } from '../format.js';
import { CliError } from '../io.js';
import { readSchemaFile } from '../objects.js';
import { openCliStore, storeUrlOf } from '../stores.js';
import { LineReader } from './lines.js';
import { Screen, TurnRenderer } from './render.js';
import { workspaceTools } from './tools.js';

/** Options of `yourtool chat`. */
export interface ChatOptions extends ModelOptions {
  store?: string;
  /** Resume this session instead of starting one. */
  session?: string;
  /** Start on this model (as `/model <name>`). */
  model?: string;
  /** The workspace of a new session (default: the working directory). */
  workspace?: string;
  /** `false` (`--no-tools`): offer the model no tools. */
  tools?: boolean;
  /** `--mcp <file>`: a YAML document whose `mcp_servers:` the runtime starts. */
  mcp?: string;
  /** A JSON Schema file: every turn asks for an object of it, shown indented (`--schema`). */
  schema?: string;
  /**
   * Make the store if it is missing, add the tables to a database without them, upgrade an
   * older store. Without it only an existing store at the current schema is used.
   */
  create?: boolean;
}

/** How long a `/model` (or `--model`) waits for the capabilities of the model it names. */
const DETECT_TIMEOUT_MS = 10_000;

const HELP = `/model <name>  switch the session's model (replays the whole history on it)
/model         show the session's model
@<name> text   send one message to another model
/cost          the session's cost so far
/exit          quit (also Ctrl-D, or Ctrl-C twice at the prompt)
Ctrl-C         cancel the running turn`;

/** The REPL's state: the session, the running turn, and Ctrl-C. */
class Chat {
  readonly #context: CommandContext;
  readonly #screen: Screen;
  readonly reader: LineReader;
  runtime!: Runtime;
  session!: SessionRecord;
  /** The JSON Schema every turn asks an object of (`--schema`), or null. */
  output: JsonSchemaObject | null = null;
  #turn: AbortController | undefined;
  #prompt: AbortController | undefined;
  #armed = false;
  #renderer: TurnRenderer | undefined;
  /** Turns sent, and those that failed (cancelled ones did not fail). */
  turns = 0;
  failedTurns = 0;
  /** Models whose failed detection was shown when routing skipped them. */
  readonly #skippedShown = new Set<string>();

  constructor(context: CommandContext) {
    this.#context = context;
    this.#screen = new Screen(context.io);
    this.reader = new LineReader(context.io.stdin, context.io.stdout, () => this.interrupt());
  }

  /** Ctrl-C: cancels the running turn; at the prompt, the second one in a row quits. */
  interrupt(): void {
    if (this.#turn) {
      if (!this.#turn.signal.aborted) {
        this.#turn.abort();
        this.#screen.notice('^C cancelling the turn');
      }
      return;
    }
    if (this.#armed) {
      this.#prompt?.abort();
      return;
    }
    this.#armed = true;
    this.#screen.notice('^C (press Ctrl-C again to quit, or type /exit)');
    this.reader.redrawPrompt();
  }

  /** Asks before a tool with side effects runs; a cancelled turn or the end of input says no. */
  readonly confirm: ConfirmHook = async ({ tool, side_effects, input, signal }) => {
    this.#renderer?.quiet();
    this.#screen.lineBreak();
    const question = `Allow ${tool} (${side_effects}) ${oneLine(JSON.stringify(input), 200)}? [y/N] `;
    const answer = await this.reader.next(question, signal);
    return answer !== null && /^y(es)?$/i.test(answer.trim());
  };

  /** Reads and handles lines until `/exit`, the end of input, or two Ctrl-C at the prompt. */
  async loop(): Promise<void> {
    for (;;) {
      this.#prompt = new AbortController();
      const line = await this.reader.next('> ', this.#prompt.signal);
      this.#prompt = undefined;
      if (line === null) return;
      this.#armed = false;
      if (!(await this.#handle(line.trim()))) return;
    }
  }

  /** One line; false to quit. */
  async #handle(line: string): Promise<boolean> {
    if (line === '') return true;
    if (line === '/exit' || line === '/quit') return false;
    if (line === '/help') {
      this.#screen.line(HELP);
      return true;
    }
    if (line === '/cost') {
      const stats = await this.runtime.sessionStats(this.session.id);
      const unpriced =
        stats.unpriced_messages > 0 ? ` (+ ${stats.unpriced_messages} unpriced)` : '';
      this.#screen.line(`session cost ${money(stats.total_cost_usd)}${unpriced}`);
      return true;
    }
    const input = parseUserInput(line);
    try {
      if (input.kind === 'show_model') {
        this.#screen.line(`model: ${this.session.active_model ?? '(routing decides)'}`);
      } else if (input.kind === 'swap') {
        await this.swap(input.model);
        this.#screen.line(`model: ${this.session.active_model}`);
      } else if (line.startsWith('/') && !line.startsWith('//')) {
        this.#screen.notice(`unknown command ${line.split(/\s/)[0]} (try /help)`);
      } else {
        this.turns++;
        try {
          await this.#turnOn(input.text, input.override);
        } catch (error) {
          this.failedTurns++;
          throw error;
        }
      }
    } catch (error) {
      this.#screen.notice(`error: ${this.#context.secrets.redact((error as Error).message)}`);
    }
    return true;
  }

  async #turnOn(text: string, override: string | null): Promise<void> {
    const controller = new AbortController();
    const renderer = new TurnRenderer(this.#screen, this.#context.io);
    this.#turn = controller;
    this.#renderer = renderer;
    try {
      // tool list changes MCP servers announced apply here, between turns, never during one
      const added = await this.runtime.refreshTools();
      if (added.length > 0) this.#screen.notice(`MCP tools added: ${added.join(', ')}`);
      const events = this.runtime.sessions.send(this.session.id, text, {
        signal: controller.signal,
        ...(override === null ? {} : { model: override }),
        ...(this.output ? { output: this.output } : {}),
      });
      for await (const event of events) {
        if (event.type === 'session.routed') this.#showSkipped(event.trace);
        renderer.event(event);
      }
    } catch (error) {
      if (!isCancelledError(error)) throw error;
    } finally {
      renderer.quiet();
      this.#turn = undefined;
      this.#renderer = undefined;
    }
  }

  /**
   * Swaps the session to `model`, its capabilities detected first when its adapter detects
   * them (Ollama): only the model asked for, so models never used are never detected.
   */
  async swap(model: string): Promise<void> {
    await this.runtime.router.prepare({
      models: [model],
      signal: AbortSignal.timeout(DETECT_TIMEOUT_MS),
    });
    this.session = await this.runtime.sessions.swapModel(this.session.id, model);
  }

  /** Says once per model when routing passed over one whose capabilities were not detected. */
  #showSkipped(trace: readonly RouteTraceEntry[]): void {
    for (const entry of trace) {
      if (entry.accepted || entry.model === null || this.#skippedShown.has(entry.model)) continue;
      const failure = this.#context.detection.get(entry.model);
      if (failure === undefined) continue;
      this.#skippedShown.add(entry.model);
      this.#screen.notice(
        this.#context.secrets.redact(
          `warning: routing skipped ${entry.model}: its capabilities could not be detected (${failure})`,
        ),
      );
    }
  }
}

async function openSession(chat: Chat, store: SqlSessionStore, options: ChatOptions, cwd: string) {
  if (options.session !== undefined) {
    const found = await store.getSession(options.session);
    if (!found) throw new CliError(`no session "${options.session}" in ${store.url}`);
    return found;
  }
  return chat.runtime.sessions.createSession({ workspace_path: options.workspace ?? cwd });
}

/**
 * `yourtool chat`: a REPL on models.yaml (and routing.yaml) with a persistent session: streamed
 * replies, `/model`, confirmation of tools that write, the running cost; Ctrl-C cancels the
 * turn, and a second Ctrl-C at the prompt quits.
 */
export async function chat(context: CommandContext, options: ChatOptions): Promise<void> {
  const { io } = context;
  const repl = new Chat(context);
  if (options.schema !== undefined) repl.output = readSchemaFile(options.schema, io.cwd);
  const stopInterrupts = io.onInterrupt(() => repl.interrupt());
  try {
    const store = await openCliStore(storeUrlOf(options.store, io), context, {
      creates: true,
      ...(options.create ? { create: true } : {}),
    });
    try {
      repl.runtime = await openCliRuntime(
        {
          ...(options.models === undefined ? {} : { models: options.models }),
          ...(options.routing === undefined ? {} : { routing: options.routing }),
          store,
          confirm: repl.confirm,
          ...(options.tools === false ? {} : { tools: workspaceTools() }),
          ...(options.mcp === undefined
            ? {}
            : { mcpServers: { file: resolve(io.cwd, options.mcp) } }),
        },
        context,
      );
    } catch (error) {
      await store.close();
      throw error;
    }
    try {
      repl.session = await openSession(repl, store, options, io.cwd);
      if (options.model !== undefined) await repl.swap(options.model);
      io.stderr.write(
        `session ${repl.session.id} · model ${repl.session.active_model ?? '(routing decides)'} · /help for commands\n`,
      );
      await repl.loop();
      io.stderr.write(
        `\nsession ${repl.session.id} saved; resume it with: yourtool chat --session ${repl.session.id}\n`,
      );
    } finally {
      await repl.runtime.close();
    }
  } finally {
    stopInterrupts();
    repl.reader.close();
  }
  if (repl.failedTurns > 0) throw new CliError(failedTurns(repl.failedTurns, repl.turns));
}

/** The chat's last line when turns failed (their errors were shown as they happened). */
function failedTurns(failed: number, turns: number): string {
  if (failed < turns) return `${failed} of ${turns} turns failed`;
  return turns === 1 ? 'the turn failed' : `all ${turns} turns failed`;
}
