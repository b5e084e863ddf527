import { isCancelledError, type Logger, type SessionRecord } from '@yourtool/core';
import { createRuntime, type Runtime } from '@yourtool/runtime';
import { parseUserInput, type SessionEvent, summarizeOlderTurns } from '@yourtool/session';
import { agentTools } from './tools.js';

/** Asks the user for a line; `null` at the end of input or when `signal` aborts. */
export type Ask = (prompt: string, signal?: AbortSignal) => Promise<string | null>;

/** What the agent needs: its configuration, and how it talks to the user. */
export interface AgentOptions {
  /** models.yaml text. */
  models: string;
  /** routing.yaml text (fallbacks, rules). */
  routing?: string;
  /** The SQLite file holding the session; the latest session of `workspace` is resumed. */
  db: string;
  /** Where the tools read and write. */
  workspace: string;
  /** A model (name or alias) that summarizes older turns when the history outgrows the window. */
  summarizer?: string;
  /** Output limit of each call (default 4096). */
  maxOutputTokens?: number;
  ask: Ask;
  write: (text: string) => void;
  /** The library's warnings (default: JSON lines on stderr); `false` for none. */
  logger?: Logger | false;
  /** Where `api_key_env` is read (default `process.env`). */
  env?: Record<string, string | undefined>;
  /**
   * MCP servers whose tools the agent may call: YAML text with `mcp_servers:` (`command`,
   * `args`, `env`, or `url`, `headers`); their tools ask before they run unless it sets
   * `side_effects`.
   */
  mcp?: string;
}

const money = (cost: string | null) => (cost === null ? 'unpriced' : `$${cost}`);

/**
 * A CLI agent: one persistent session, two tools (and an MCP server's, when given), `/model`,
 * the running cost, Ctrl-C.
 */
export class Agent {
  readonly runtime: Runtime;
  session: SessionRecord;
  readonly #options: AgentOptions;
  #turn: AbortController | undefined;
  #prompt: AbortController | undefined;
  #interruptedAtPrompt = false;

  private constructor(runtime: Runtime, session: SessionRecord, options: AgentOptions) {
    this.runtime = runtime;
    this.session = session;
    this.#options = options;
  }

  /** Opens the stack and resumes the workspace's latest session (or starts one). */
  static async start(options: AgentOptions): Promise<Agent> {
    let agent: Agent | undefined;
    const runtime = await createRuntime({
      models: options.models,
      ...(options.routing ? { routing: options.routing } : {}),
      store: `sqlite:${options.db}`,
      tools: agentTools(options.workspace),
      confirm: ({ tool, input, signal }) => (agent as Agent).#confirm(tool, input, signal),
      ...(options.summarizer
        ? { compaction: summarizeOlderTurns({ model: options.summarizer }) }
        : {}),
      ...(options.maxOutputTokens ? { maxOutputTokens: options.maxOutputTokens } : {}),
      ...(options.logger === undefined ? {} : { logger: options.logger }),
      ...(options.env ? { env: options.env } : {}),
      ...(options.mcp ? { mcpServers: options.mcp } : {}),
    });
    const { sessions } = await runtime.store.listSessions({
      workspace_path: options.workspace,
      limit: 1,
    });
    const session =
      sessions[0] ?? (await runtime.sessions.createSession({ workspace_path: options.workspace }));
    agent = new Agent(runtime, session, options);
    const cost = await runtime.sessionCost(session.id);
    options.write(
      `${sessions[0] ? 'resumed' : 'new'} session ${session.id} (${money(cost)} so far)\n`,
    );
    return agent;
  }

  async #confirm(
    tool: string,
    input: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<boolean> {
    const answer = await this.#options.ask(
      `\nRun ${tool} ${JSON.stringify(input)}? [y/N] `,
      signal,
    );
    return answer?.trim().toLowerCase() === 'y';
  }

  /** Ctrl-C: cancels the running turn; at the prompt, twice in a row, quits. */
  interrupt(): void {
    if (this.#turn) this.#turn.abort();
    else if (this.#interruptedAtPrompt) this.#prompt?.abort();
    else {
      this.#interruptedAtPrompt = true;
      this.#options.write('\n(Ctrl-C again to quit)\n');
    }
  }

  /** Reads lines until the end of input, `/exit` or two Ctrl-C at the prompt. */
  async run(): Promise<void> {
    for (;;) {
      this.#prompt = new AbortController();
      const line = await this.#options.ask('> ', this.#prompt.signal);
      if (line === null || line.trim() === '/exit') return;
      this.#interruptedAtPrompt = false;
      if (line.trim() !== '') await this.handle(line);
    }
  }

  /** One line of input: `/model [name]`, or a message (`@model text` for one message). */
  async handle(line: string): Promise<void> {
    const input = parseUserInput(line);
    const { write } = this.#options;
    try {
      if (input.kind === 'show_model') write(`model: ${this.session.active_model ?? 'default'}\n`);
      else if (input.kind === 'swap') {
        this.session = await this.runtime.sessions.swapModel(this.session.id, input.model);
        write(`model: ${this.session.active_model}\n`);
      } else await this.#turnOn(input.text, input.override);
    } catch (error) {
      if (!isCancelledError(error)) write(`error: ${(error as Error).message}\n`);
    }
  }

  async #turnOn(text: string, model: string | null): Promise<void> {
    this.#turn = new AbortController();
    try {
      // tools an MCP server added since the last turn join here, never during a turn
      const added = await this.runtime.refreshTools();
      if (added.length > 0) this.#options.write(`(new tools: ${added.join(', ')})\n`);
      const events = this.runtime.sessions.send(this.session.id, text, {
        signal: this.#turn.signal,
        ...(model ? { model } : {}),
      });
      for await (const event of events) this.#show(event);
    } finally {
      this.#turn = undefined;
    }
  }

  #show(event: SessionEvent): void {
    const { write } = this.#options;
    if (event.type === 'text.delta') write(event.text);
    else if (event.type === 'session.tool_started') write(`\n[${event.tool_name}]\n`);
    else if (event.type === 'session.fallback') {
      write(`\n(${event.from} failed: ${event.error_class}; continuing on ${event.to})\n`);
    } else if (event.type === 'session.compacted') write('\n(older turns summarized)\n');
    else if (event.type === 'session.turn_complete') {
      const { result } = event;
      const model = result.messages.findLast((m) => m.role === 'assistant')?.metadata.model;
      const cancelled = result.end === 'cancelled' ? ' · cancelled' : '';
      write(
        `\n[${model ?? 'no reply'} · turn ${money(result.cost_usd)} · session ${money(result.session_cost_usd)}${cancelled}]\n`,
      );
    }
  }

  /** Closes the MCP servers, the adapters and the store. */
  close(): Promise<void> {
    return this.runtime.close();
  }
}
