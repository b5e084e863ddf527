import {
  type ContentBlock,
  type CreateSessionInput,
  type Message,
  type OutputOf,
  type OutputSchemaInput,
  type SessionRecord,
  YourtoolError,
} from '@yourtool/core';
import { SealedPrefixMemo } from '@yourtool/core/adapter';
import { swapMessages } from './bound-targets.js';
import { InvalidSendOptionError, TurnInProgressError } from './errors.js';
import type { SessionEvent, TurnResult } from './events.js';
import { HistoryCache } from './history-cache.js';
import { checkUserInput } from './input-check.js';
import { LastCuts } from './last-cuts.js';
import type { KeptHistories, SendOptions, SessionManagerOptions } from './options.js';
import { RouterPreparation } from './prepare.js';
import type { ToolRegistry } from './tools.js';
import { runTurn } from './turn.js';
import { isLeaseHeld } from './turn-lease.js';
import { waitForTurnMs } from './turn-lease-options.js';
import { TurnLog } from './turn-log.js';
import {
  type ActiveTurn,
  composeSystemPrompt,
  type ManagerContext,
  sessionOf,
} from './turn-state.js';
import { TurnWait } from './turn-wait.js';
import { resolveManagerOptions } from './validate-options.js';

/**
 * The session manager (contract §3.3): for one turn it routes, stores the user message, builds
 * the canonical request (system prompt from its parts, tools from the registry), streams the
 * adapter's events through to the caller, assembles and stores the assistant message (ULID,
 * model, provider, routing record, usage with cost and pricing version), emits `llm.call_*`,
 * runs requested tools (asking consent for write, execute and network side effects), stores
 * their results, and loops until the model ends its turn or the step limit.
 *
 * Cancelling stores the partial assistant message as `cancelled`, runs no further confirmation
 * or tool, and answers every tool use left without a result, so the history stays valid. A
 * call that fails in a way another model could fix goes on with routing.yaml's fallback. Every
 * wait of a turn (the provider stream, the confirmation hook, a tool run) ends when the turn is
 * cancelled. Resuming a stored session on another model replays its whole history through the
 * new adapter. How a turn flows, file by file: docs/guides/how-a-turn-flows.md.
 */
export class SessionManager {
  readonly #context: ManagerContext;
  readonly #active = new Map<string, ActiveTurn>();

  /**
   * Checks every option (see {@link SessionManagerOptions}).
   * @throws InvalidManagerOptionError naming the option it cannot use; nothing is stored then.
   */
  constructor(options: SessionManagerOptions) {
    const settings = resolveManagerOptions(options);
    this.#context = {
      settings,
      histories: new HistoryCache(settings.store, settings.logger, {
        bytes: settings.keptHistoryBytes,
        sessions: settings.keptSessions,
      }),
      preparation: new RouterPreparation(settings.router, settings.logger),
      cuts: new LastCuts(),
      sealedToolUseIds: new SealedPrefixMemo(() => new Set<string>()),
    };
  }

  /** The tool registry. */
  get tools(): ToolRegistry {
    return this.#context.settings.tools;
  }

  /**
   * The histories the manager keeps between turns now: how many, and their estimated heap
   * bytes, which `keptHistoryBytes` bounds (decision 0186). For metrics and capacity checks.
   */
  get keptHistories(): KeptHistories {
    const { histories } = this.#context;
    return { sessions: histories.keptSessions, bytes: histories.keptBytes };
  }

  /** Creates a session. */
  async createSession(
    input: Pick<
      CreateSessionInput,
      'workspace_path' | 'active_model' | 'id' | 'user' | 'tenant' | 'tags'
    >,
  ): Promise<SessionRecord> {
    const session = await this.#context.settings.store.createSession(input);
    // a new session has no messages: its first turn needs no history read
    this.#context.histories.seed(session);
    return session;
  }

  /** A session's stored messages, in order. */
  async history(sessionId: string): Promise<Message[]> {
    return (await this.#context.settings.store.loadMessages(sessionId)).messages;
  }

  /**
   * `/model`: makes a model sticky for the session after checking the history can go to it.
   * Throws `SwapRefusedError` (message: "Cannot swap to …: session contains images that this
   * model can't process. Active model unchanged.") or `UnknownModelError`; the stored session is
   * unchanged then. Returns the updated session.
   */
  async swapModel(sessionId: string, model: string): Promise<SessionRecord> {
    const { settings, histories } = this.#context;
    const session = await sessionOf(this.#context, sessionId);
    const messages = [...(await histories.load(session)).conversation];
    const id = settings.router.checkSwap(model, {
      session_id: sessionId,
      messages: swapMessages(settings, messages, model),
      tools: settings.tools.definitions(),
      system_prompt: composeSystemPrompt(settings.systemPrompt, session),
      max_output_tokens: settings.maxOutputTokens,
    });
    return settings.store.updateSession(sessionId, { active_model: id });
  }

  /**
   * Cancels the running turn of a session in this manager; `true` if one was running. A turn
   * running in another process (or another manager) is not reached: cancel it where it runs
   * (decision 0156).
   */
  cancel(sessionId: string): boolean {
    const turn = this.#active.get(sessionId);
    if (!turn) return false;
    turn.controller.abort();
    return true;
  }

  /**
   * Answers a `session.confirmation_requested` of the session's running turn (a turn sent with
   * `confirmFromStream: true`) by its tool use id: `true` runs the tool, `false` refuses it.
   * Returns `false` when no such request is open (already answered, unknown id, no turn).
   */
  answerConfirmation(sessionId: string, toolUseId: string, allowed: boolean): boolean {
    const respond = this.#active.get(sessionId)?.confirmations.get(toolUseId);
    return respond ? respond(allowed) : false;
  }

  /**
   * Runs a turn and returns its result (events are consumed and dropped). With `output` (a
   * zod or other Standard Schema), the result's `object` is typed from the schema.
   */
  async sendAndWait<S extends OutputSchemaInput>(
    sessionId: string,
    input: string | ContentBlock[],
    options: SendOptions & { output: S },
  ): Promise<TurnResult<OutputOf<S>>>;
  async sendAndWait(
    sessionId: string,
    input: string | ContentBlock[],
    options?: SendOptions,
  ): Promise<TurnResult>;
  async sendAndWait(
    sessionId: string,
    input: string | ContentBlock[],
    options: SendOptions = {},
  ): Promise<TurnResult> {
    if (options.confirmFromStream) {
      throw new InvalidSendOptionError(
        'confirmFromStream',
        'sendAndWait cannot take confirmFromStream: it drops the stream, so no session.confirmation_requested could be answered and the turn would wait until cancelled. Iterate send() instead, or pass a confirm hook to the SessionManager.',
      );
    }
    let result: TurnResult | undefined;
    for await (const event of this.send(sessionId, input, options)) {
      if (event.type === 'session.turn_complete') result = event.result;
    }
    if (!result)
      throw new YourtoolError(
        'turn_incomplete',
        `the turn of session ${sessionId} ended without a result`,
      );
    return result;
  }

  /**
   * Runs one turn. Yields the stream events of every model call and the session's own events;
   * the last is `session.turn_complete`. An adapter failure is stored (the assistant message
   * with status `error`), reported in the result and in `llm.call_failed`, then thrown, unless
   * its class warrants a fallback (auth, rate limit, server error, network, context overflow)
   * and routing has one: then `session.fallback` is yielded and the step goes on with that
   * model.
   *
   * The turn is routed before the user message is stored: a routing error (the router's
   * `NoRouteError`, `StrictRuleError`, `ChoiceUnavailableError`) is thrown before any event,
   * with nothing stored. Before the manager's first routing decision it awaits
   * `router.prepare()`. Input that cannot become a message providers take (blank text, an
   * empty content list, a malformed image) is refused first with `InvalidInputError` naming
   * the block; nothing is stored then either.
   *
   * A consumer that stops iterating early (`break`, `return()`, a throw in its loop body)
   * cancels the turn: the call in progress is cancelled and its assistant message stored as
   * `cancelled` with the usage reported so far and its cost, unanswered tool uses get a
   * "not run" result, nothing more runs, and the session is free for the next turn once the
   * loop has exited (docs/decisions/0066).
   *
   * One turn runs at a time per session: in this manager, and with a store that keeps turn
   * leases (`@yourtool/store`, `MemorySessionStore`) in every process sharing the store. A send
   * to a session whose turn runs throws `TurnInProgressError` before anything is stored, or,
   * with `options.waitForTurn`, waits for it (until its deadline or its signal) and runs on the
   * history it left (docs/decisions/0156).
   * @throws TurnInProgressError; CancelledError when the signal aborts a wait;
   * InvalidSendOptionError for a `waitForTurn` that is not `{ timeoutMs }`.
   */
  async *send(
    sessionId: string,
    input: string | ContentBlock[],
    options: SendOptions = {},
  ): AsyncGenerator<SessionEvent, void, undefined> {
    checkUserInput(input);
    const waitMs = waitForTurnMs(options.waitForTurn);
    const wait = waitMs === null ? null : new TurnWait(sessionId, waitMs, options.signal);
    for (;;) {
      // a turn of this manager, or (with a store that keeps leases) of any process; the turn
      // runs in this generator, not one of its own, so its events cross one layer fewer
      if (!this.#active.has(sessionId)) {
        const { turn, onAbort } = this.#begin(sessionId, options);
        try {
          yield* runTurn(this.#context, turn, { sessionId, input, options });
          return;
        } catch (error) {
          // thrown only before the turn's first write, so before its first event: another
          // turn holds the session's lease (decision 0156)
          if (!isLeaseHeld(error)) throw error;
        } finally {
          await this.#end(sessionId, turn, onAbort, options);
        }
      }
      if (!wait) throw new TurnInProgressError(sessionId);
      await wait.pause();
    }
  }

  /** Registers a turn of the session as running: its controller, confirmations and log. */
  #begin(sessionId: string, options: SendOptions): { turn: ActiveTurn; onAbort: () => void } {
    const { settings, histories } = this.#context;
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    if (options.signal?.aborted) controller.abort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const turn: ActiveTurn = {
      controller,
      confirmations: new Map(),
      log: new TurnLog({
        store: settings.store,
        sessionId,
        lease: settings.turnLease,
        logger: settings.logger,
        // a heartbeat that finds the lease taken ends the turn: the session is another turn's now
        onLost: (error) => controller.abort(error),
      }),
    };
    this.#active.set(sessionId, turn);
    // the session's kept history stays while the turn runs, so its writes can join it
    histories.hold(sessionId);
    return { turn, onAbort };
  }

  /** Ends a turn {@link #begin} registered, however it ended. */
  async #end(
    sessionId: string,
    turn: ActiveTurn,
    onAbort: () => void,
    options: SendOptions,
  ): Promise<void> {
    const { histories } = this.#context;
    turn.confirmations.clear();
    options.signal?.removeEventListener('abort', onAbort);
    histories.settle(sessionId, turn.log);
    histories.release(sessionId);
    await turn.log.end();
    this.#active.delete(sessionId);
  }
}
