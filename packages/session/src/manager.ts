import {
  type AdapterError,
  type AppendMessageOptions,
  type AttemptEvent,
  type BusEvent,
  CancelledError,
  type ContentBlock,
  createMessage,
  type ErrorClass,
  type EventBus,
  type FallbackAttempt,
  isAdapterError,
  isCancelledError,
  isYourtoolError,
  type Logger,
  type Message,
  type MessageStatus,
  type MessageViolation,
  newRequestId,
  newToolUseId,
  nowTimestamp,
  OtherAdapterError,
  parseMessage,
  parseModelId,
  type RouteTraceEntry,
  type SessionRecord,
  type SessionStats,
  type SessionStore,
  type StreamEvent,
  sealMessage,
  sessionStatsOf,
  silentLogger,
  sumDecimalStrings,
  type TokenUsage,
  type ToolDefinition,
  type ToolIdMap,
  type ToolResultContentBlock,
  type ToolUseBlock,
  timestampToEpochMicros,
  toolResultBlock,
  type Usage,
  validateToolInput,
  YourtoolError,
} from '@yourtool/core';
import { buildUsage, type CostOptions, type PriceTable, sumCosts } from '@yourtool/pricing';
import type { RouteDecision, RouteInput, Router } from '@yourtool/router';
import {
  CompactionError,
  type CompactionHook,
  type CompactionReason,
  type CompactionRecord,
  type CompactionRequest,
  compactedConversation,
  compactionOf,
} from './compaction.js';
import type { SessionEvent, TurnEnd, TurnResult } from './events.js';
import { checkReply, InvalidReplyError, textOf } from './reply-check.js';
import { CONFIRMED_SIDE_EFFECTS, type RegisteredTool, ToolRegistry } from './tools.js';

/** Thrown when a second turn is started on a session whose turn is still running. */
export class TurnInProgressError extends YourtoolError {
  constructor(sessionId: string) {
    super(
      'turn_in_progress',
      `session ${sessionId} already has a turn running; wait for it or cancel it`,
    );
  }
}

/** Thrown when a turn's options contradict each other or the method they were passed to. */
export class InvalidSendOptionError extends YourtoolError {
  /** The option at fault. */
  readonly option: string;

  constructor(option: string, message: string) {
    super('invalid_send_option', message);
    this.option = option;
  }
}

/** Thrown by the {@link SessionManager} constructor for an option it cannot use. */
export class InvalidManagerOptionError extends YourtoolError {
  /** The option at fault. */
  readonly option: string;

  constructor(option: string, message: string) {
    super('invalid_manager_option', message);
    this.option = option;
  }
}

/** Thrown when a session id is not in the store. */
export class UnknownSessionError extends YourtoolError {
  constructor(sessionId: string) {
    super('unknown_session', `no session "${sessionId}" in the store`);
  }
}

/** A request to run a tool whose side effects need consent. */
export interface ConfirmationRequest {
  session_id: string;
  /** The tool's name. */
  tool: string;
  side_effects: RegisteredTool['definition']['side_effects'];
  /** The tool input the model asked for (already validated against the tool's schema). */
  input: Record<string, unknown>;
  /** Canonical tool use id. */
  tool_use_id: string;
  /**
   * The turn's signal. It aborts when the turn is cancelled (`cancel(sessionId)`, the `send`
   * signal, or the consumer stopping its iteration): close the prompt then. The turn does not
   * wait for an answer after that; the tool is not run and its stored result says the turn
   * was cancelled.
   */
  signal: AbortSignal;
}

/**
 * Decides whether a write, execute or network tool may run: `true` runs it, anything else
 * refuses it. A hook that throws (or rejects) refuses it too, with the error's message in the
 * stored result. The wait for the answer ends when `request.signal` aborts.
 */
export type ConfirmHook = (request: ConfirmationRequest) => boolean | Promise<boolean>;

/** Context handed to system prompt parts. */
export interface SystemPromptContext {
  session: SessionRecord;
}

/** A piece of the system prompt: fixed text, or text computed per turn (null to skip). */
export type SystemPromptPart = string | ((context: SystemPromptContext) => string | null);

/** Options of {@link SessionManager}. */
export interface SessionManagerOptions {
  store: SessionStore;
  router: Router;
  /** The price table used for every assistant message's cost. */
  pricing: PriceTable;
  /** Cost options (e.g. the cache write TTL your prompts use). */
  costOptions?: CostOptions;
  /** Receives `llm.call_started`, `llm.call_completed`, `llm.call_failed` (and the router's `route.decided`). */
  bus?: EventBus;
  /** The tools offered to every turn. */
  tools?: ToolRegistry;
  /** Consent for tools with write, execute or network side effects. Without it they are refused. */
  confirm?: ConfirmHook;
  /** System prompt parts, composed in order and joined with a blank line. */
  systemPrompt?: readonly SystemPromptPart[];
  /** Model calls one turn may make (each tool round is one). Default 8. */
  maxSteps?: number;
  /** `max_output_tokens` of each call. Default 4096. */
  maxOutputTokens?: number;
  /**
   * Opt-in context management (decision 0101): when routing finds the history too long for
   * every model that could otherwise take the turn, this hook replaces older turns with a
   * stored summary message (`summarizeOlderTurns({ model })`, `dropOldestTurns()`, or your own)
   * and the turn is routed again. Without it such a turn fails with the router's `NoRouteError`.
   */
  compaction?: CompactionHook;
  /**
   * How many sessions' histories the manager keeps between turns (decision 0103), the least
   * recently used dropped first; a dropped session is loaded from the store on its next turn.
   * Default 64; 0 keeps none (every turn loads its session, as a stateless server would).
   */
  keptSessions?: number;
  logger?: Logger;
}

/** Options of one turn. */
export interface SendOptions {
  /** Per-message override (`@model`). */
  model?: string | null;
  /** Cancels the turn (as {@link SessionManager.cancel} does). */
  signal?: AbortSignal;
  /** A tier the turn asks for (routing rules can match it). */
  tier?: string | null;
  /** Ask for extended thinking (routing checks the model supports it). */
  thinking?: boolean;
  /** Provider options passed to the adapter, keyed by adapter name. */
  providerOptions?: Record<string, Record<string, unknown>>;
  /** Structured output for this turn. */
  output_schema?: Record<string, unknown> | null;
  /**
   * When the explicit choice (`model`, or the session's `/model` choice) cannot be honoured
   * (unknown name, not configured, unavailable, unable to take this history), let routing
   * choose instead of throwing the router's `ChoiceUnavailableError`. Passed to the router as
   * `RouteInput.fallthrough`.
   */
  fallthrough?: boolean;
  /**
   * Ask consent for write, execute and network tools from the stream instead of the manager's
   * `confirm` hook (which this turn then does not use): the turn yields
   * `session.confirmation_requested` and waits for its `respond()` or
   * {@link SessionManager.answerConfirmation}, or for the turn to be cancelled (decision 0098).
   * Only for consumers that iterate `send()`: `sendAndWait` drops the events, so it refuses
   * this option with {@link InvalidSendOptionError} rather than wait for an answer that cannot come.
   */
  confirmFromStream?: boolean;
}

/** Codes of the store errors that refuse what a message holds (not a failing database). */
const STORE_INPUT_ERRORS = new Set(['invalid_message', 'json_too_deep', 'invalid_store_input']);

/**
 * The error classes a turn falls back on (to the next model of routing.yaml's `fallbacks:`):
 * the retryable ones, once the adapter's own retries are spent, a context overflow, and auth
 * (one provider's key revoked or out of credit; the fallback is usually another provider).
 * Not invalid_request, cancelled or other: another model would not fix those (decision 0138).
 */
export const FALLBACK_ERROR_CLASSES: ReadonlySet<ErrorClass> = new Set<ErrorClass>([
  'auth',
  'rate_limit',
  'server_error',
  'network',
  'context_overflow',
]);

interface ActiveTurn {
  controller: AbortController;
  /** Open stream confirmations of the turn, by tool use id: each answers its request. */
  confirmations: Map<string, (allowed: boolean) => boolean>;
  /** What the turn wrote to its session (decision 0103). */
  writes: TurnWrites;
}

/**
 * Events produced while the turn awaits something (a provider stream, a confirmation, a tool
 * run), buffered until the turn's generator yields them, in order.
 */
class EventQueue {
  #items: SessionEvent[] = [];
  #wake: (() => void) | null = null;
  #waiting: Promise<void> | null = null;

  push(event: SessionEvent): void {
    this.#items.push(event);
    const wake = this.#wake;
    this.#wake = null;
    this.#waiting = null;
    wake?.();
  }

  /** Takes every buffered event. */
  drain(): SessionEvent[] {
    return this.#items.splice(0);
  }

  /** Resolves once an event is buffered (at once if one is). */
  ready(): Promise<void> {
    if (this.#items.length > 0) return Promise.resolve();
    this.#waiting ??= new Promise<void>((resolve) => {
      this.#wake = resolve;
    });
    return this.#waiting;
  }
}

/**
 * Awaits `work`, yielding the events `queue` receives meanwhile as they arrive (and those left
 * when it settles); returns what `work` resolves to, or throws what it rejects with.
 */
async function* pump<T>(
  work: Promise<T>,
  queue: EventQueue,
): AsyncGenerator<SessionEvent, T, undefined> {
  const settled = work.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  for (;;) {
    const next = await Promise.race([settled, queue.ready().then(() => null)]);
    for (const event of queue.drain()) yield event;
    if (next === null) continue;
    if (!next.ok) throw next.error;
    return next.value;
  }
}

/** What a wait raced against the turn's signal resolves to when the signal wins. */
const ABORTED: unique symbol = Symbol('aborted');

/**
 * Waits for `work` unless `signal` aborts first (then resolves to {@link ABORTED} at once and
 * ignores whatever `work` does later). A rejection of `work` before the abort rejects.
 */
function unlessAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T | typeof ABORTED> {
  if (signal.aborted) {
    work.catch(() => {});
    return Promise.resolve(ABORTED);
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(ABORTED);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** The stored result of a tool the cancelled turn did not run (decision 0067). */
const notRunText = (tool: string) =>
  `The turn was cancelled before ${tool} ran, so it was not run.`;

/** Sessions whose histories a manager keeps between turns unless told otherwise (decision 0103). */
const DEFAULT_KEPT_SESSIONS = 64;

/** How long a turn waits before detecting again the capabilities a prepare could not detect. */
const PREPARE_RETRY_MS = 60_000;

const ZERO_USAGE: TokenUsage = {
  input_tokens: 0,
  output_tokens: 0,
  cached_input_tokens: 0,
  cache_creation_input_tokens: 0,
};

/**
 * The session manager (contract §3.3): for one turn it routes, stores the user message, builds
 * the canonical request (system prompt from its parts, tools from the registry), streams the
 * adapter's events through to the caller, assembles and stores the assistant message (ULID,
 * model, provider, routing record, usage with cost and pricing version), emits `llm.call_*`,
 * runs requested tools (asking consent for write, execute and network side effects), stores
 * their results, and loops until the model ends its turn or the step limit. Cancelling stores
 * the partial assistant message as `cancelled`, runs no further confirmation or tool, and
 * answers every tool use left without a result (decision 0067). A call that fails in a way
 * another model could fix goes on with routing.yaml's fallback (decisions 0095, 0096). Every wait of a turn (the
 * provider stream, the confirmation hook, a tool run) ends when the turn is cancelled.
 * Resuming a stored session on another model replays its whole history through the new adapter.
 */
export class SessionManager {
  readonly #options: SessionManagerOptions;
  readonly #logger: Logger;
  readonly #tools: ToolRegistry;
  readonly #active = new Map<string, ActiveTurn>();
  /** Sessions' histories as this manager last loaded and wrote them (decision 0103). */
  readonly #histories = new Map<string, KnownHistory>();
  /** Whether `router.prepare()` has run to its end with every detection done (decision 0097). */
  #prepared = false;
  /** After a prepare that reported failures: when the next turn may try again (epoch ms). */
  #prepareRetryAt = 0;
  /** The `router.prepare()` in progress, shared by the turns that wait for it. */
  #preparing: Promise<void> | null = null;

  /** Throws {@link InvalidManagerOptionError} for an option it cannot use (`keptSessions`). */
  constructor(options: SessionManagerOptions) {
    const kept = options.keptSessions;
    if (kept !== undefined && !(Number.isSafeInteger(kept) && kept >= 0)) {
      throw new InvalidManagerOptionError(
        'keptSessions',
        `keptSessions must be a whole number of sessions, 0 or more (got ${String(kept)})`,
      );
    }
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
    this.#tools = options.tools ?? new ToolRegistry();
  }

  /** The tool registry. */
  get tools(): ToolRegistry {
    return this.#tools;
  }

  /** Creates a session. */
  createSession(input: {
    workspace_path: string;
    active_model?: string | null;
    id?: string;
  }): Promise<SessionRecord> {
    return this.#options.store.createSession(input);
  }

  /** A session's stored messages, in order. */
  async history(sessionId: string): Promise<Message[]> {
    return (await this.#options.store.loadMessages(sessionId)).messages;
  }

  /**
   * `/model`: makes a model sticky for the session after checking the history can go to it.
   * Throws `SwapRefusedError` (message: "Cannot swap to …: session contains images that this
   * model can't process. Active model unchanged.") or `UnknownModelError`; the stored session is
   * unchanged then. Returns the updated session.
   */
  async swapModel(sessionId: string, model: string): Promise<SessionRecord> {
    const session = await this.#session(sessionId);
    const messages = conversationOf((await this.#loadHistory(session)).messages);
    const id = this.#options.router.checkSwap(model, {
      session_id: sessionId,
      messages,
      tools: this.#tools.definitions(),
      system_prompt: this.#systemPrompt(session),
      max_output_tokens: this.#maxOutputTokens(),
    });
    return this.#options.store.updateSession(sessionId, { active_model: id });
  }

  /** Cancels the running turn of a session; `true` if one was running. */
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

  /** Runs a turn and returns its result (events are consumed and dropped). */
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
   * its class warrants a fallback (rate limit, server error, network, context overflow) and
   * routing has one: then `session.fallback` is yielded and the step goes on with that model
   * (decision 0095).
   *
   * The turn is routed before the user message is stored: a routing error (the router's
   * `NoRouteError`, `StrictRuleError`, `ChoiceUnavailableError`) is thrown before any event,
   * with nothing stored. Before the manager's first routing decision it awaits
   * `router.prepare()` (decision 0097).
   *
   * A consumer that stops iterating early (`break`, `return()`, a throw in its loop body)
   * cancels the turn: the call in progress is cancelled and its assistant message stored as
   * `cancelled` with the usage reported so far and its cost, unanswered tool uses get a
   * "not run" result, nothing more runs, and the session is free for the next turn once the
   * loop has exited (decisions 0066, 0067).
   */
  async *send(
    sessionId: string,
    input: string | ContentBlock[],
    options: SendOptions = {},
  ): AsyncGenerator<SessionEvent, void, undefined> {
    if (this.#active.has(sessionId)) throw new TurnInProgressError(sessionId);
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    if (options.signal?.aborted) controller.abort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const turn: ActiveTurn = { controller, confirmations: new Map(), writes: new TurnWrites() };
    this.#active.set(sessionId, turn);
    try {
      yield* this.#turn(sessionId, input, options, turn);
    } finally {
      turn.confirmations.clear();
      options.signal?.removeEventListener('abort', onAbort);
      this.#settleHistory(sessionId, turn.writes);
      this.#active.delete(sessionId);
    }
  }

  async *#turn(
    sessionId: string,
    input: string | ContentBlock[],
    options: SendOptions,
    turn: ActiveTurn,
  ): AsyncGenerator<SessionEvent, void, undefined> {
    const { controller } = turn;
    const signal = controller.signal;
    const queue = new EventQueue();
    const { writes } = turn;
    const session = await this.#session(sessionId);
    const loaded = await this.#loadHistory(session);
    writes.start = loaded.revision;
    // Attempts a fallback replaced are not part of the conversation (decision 0096).
    const history = conversationOf(loaded.messages);
    const { toolIdMap } = loaded;
    const stored: Message[] = [];
    const maxSteps = this.#options.maxSteps ?? 8;
    const systemPrompt = this.#systemPrompt(session);
    const tools = this.#tools.definitions();
    const routeInput = (): RouteInput => ({
      session_id: sessionId,
      messages: [...history],
      tools,
      system_prompt: systemPrompt,
      output_schema: options.output_schema ?? null,
      max_output_tokens: this.#maxOutputTokens(),
      thinking: options.thinking ?? false,
      override: options.model ?? null,
      sticky: session.active_model,
      tier: options.tier ?? null,
      workspace_path: session.workspace_path,
      ...(options.fallthrough !== undefined ? { fallthrough: options.fallthrough } : {}),
    });

    // Route before storing (decision 0095): the user message is routed with the history in
    // memory and stored only once a model can take it. A routing error (no model fits, an
    // explicit choice that cannot be honoured, a strict rule's refusal) is thrown from here
    // with nothing stored, so the session's next turn is not poisoned by it.
    const user = createMessage({
      session_id: sessionId,
      role: 'user',
      content: typeof input === 'string' ? [{ type: 'text', text: input }] : input,
    });
    history.push(user);
    await this.#prepare(signal);
    const compacted: SessionEvent[] = [];
    /**
     * Routes; when the history is too long for every model that would otherwise take the turn
     * and a compaction hook is set, compacts (storing the summary) and routes again once
     * (decision 0101). The events of a compaction are left in `compacted`.
     */
    const routeOrCompact = async (): Promise<[RouteInput, RouteDecision]> => {
      const first = routeInput();
      try {
        return [first, this.#options.router.route(first)];
      } catch (error) {
        const target = contextLimitedTarget(error);
        if (!target || !this.#options.compaction) throw error;
        const done = await this.#compact({
          session,
          history,
          turnStart: history.indexOf(user),
          writes,
          reason: 'context_window',
          target,
          signal,
          systemPrompt,
          tools,
        });
        if (!done) throw error;
        stored.push(done.message);
        compacted.push(done.event);
        const again = routeInput();
        return [again, this.#options.router.route(again)];
      }
    };
    const [firstInput, firstDecisionValue] = await routeOrCompact();
    let firstDecision: RouteDecision | null = firstDecisionValue;
    for (const event of compacted.splice(0)) yield event;
    await this.#write(writes, 'append', user);
    stored.push(user);
    yield { type: 'session.user_message', message: user };

    let end: TurnEnd = 'end_turn';
    let steps = 0;
    let failure: AdapterError | null = null;

    // Tool uses of this turn's stored assistant messages that have no stored result yet: a
    // cancelled or abandoned turn answers them (decision 0067), so every tool use in the
    // history keeps its result.
    const unanswered = new Map<string, ToolUseBlock>();
    const keepAssistant = (message: Message) => {
      history.push(message);
      stored.push(message);
      for (const block of message.content) {
        if (block.type === 'tool_use') unanswered.set(block.id, block);
      }
    };
    const keepToolResult = async (
      use: ToolUseBlock,
      result: { message: Message; is_error: boolean },
    ) => {
      await this.#write(writes, 'append', result.message);
      unanswered.delete(use.id);
      history.push(result.message);
      stored.push(result.message);
    };
    /** Stores a "not run" result for every unanswered tool use; returns their events. */
    const answerUnanswered = async (step: number): Promise<SessionEvent[]> => {
      const events: SessionEvent[] = [];
      for (const use of [...unanswered.values()]) {
        const result = this.#toolReply(session, use, notRunText(use.name), true);
        await keepToolResult(use, result);
        events.push({
          type: 'session.tool_result',
          step,
          message: result.message,
          tool_name: use.name,
          is_error: true,
        });
      }
      return events;
    };

    // The model call in progress, if any. A consumer that stops iterating (`break`) leaves the
    // turn while a call streams or before the tools ran: the `finally` below ends it.
    let call: AsyncGenerator<SessionEvent, CallOutcome, undefined> | null = null;
    let settled = false;
    let throwing = false;
    /**
     * Ends a turn left early: the consumer stopped iterating, or something threw. Nothing more
     * runs; the call in progress is cancelled and pulled to its end (its row stored as
     * `cancelled` with the usage seen so far and its cost), and every unanswered tool use gets
     * its result (decisions 0066, 0067). A failure here is thrown unless another error is
     * already on its way out, which it must not hide (then it is logged).
     */
    const finishEarly = async (failing: boolean): Promise<void> => {
      controller.abort();
      try {
        if (call) {
          let next: IteratorResult<SessionEvent, CallOutcome | undefined>;
          do next = await call.next();
          while (!next.done);
          call = null;
          if (next.value?.message) keepAssistant(next.value.message);
        }
        await answerUnanswered(steps);
      } catch (cleanup) {
        if (!failing) throw cleanup;
        this.#logger.warn(
          {
            event: 'turn_cleanup_failed',
            session_id: sessionId,
            error: cleanup instanceof Error ? cleanup.message : String(cleanup),
          },
          'could not finish the stored turn after it ended early',
        );
      }
    };

    try {
      while (steps < maxSteps) {
        if (signal.aborted) {
          end = 'cancelled';
          break;
        }
        steps++;
        let input = firstInput;
        let decision: RouteDecision;
        if (firstDecision) decision = firstDecision;
        else [input, decision] = await routeOrCompact();
        firstDecision = null;
        for (const event of compacted.splice(0)) yield event;
        const failures: FallbackAttempt[] = [];
        let outcome: CallOutcome;
        let overflowCompacted = false;
        // One model call, and a fallback call after each failure worth one (decision 0095).
        for (;;) {
          yield {
            type: 'session.routed',
            step: steps,
            model: decision.model,
            decision: decision.record,
            trace: decision.trace,
          };
          call = this.#call(
            decision,
            history,
            systemPrompt,
            toolIdMap,
            options,
            signal,
            sessionId,
            queue,
            steps,
            writes,
          );
          let done: CallOutcome | undefined;
          for (;;) {
            const next = await call.next();
            if (next.done) {
              done = next.value;
              break;
            }
            yield next.value;
          }
          call = null;
          outcome = done;
          const fallback = this.#fallback(input, decision, failures, outcome.error, signal);
          // No fallback for a context overflow: compact, then try the same routing again once
          // (decision 0101). The retry's record names the overflowed attempt in fallback_from.
          let retry: RouteDecision | null = null;
          let compactedEvent: SessionEvent | null = null;
          const overflow = outcome.error?.error_class === 'context_overflow' ? outcome.error : null;
          if (!fallback && overflow && this.#options.compaction && !overflowCompacted) {
            overflowCompacted = true;
            const done = signal.aborted
              ? null
              : await this.#compact({
                  session,
                  history,
                  turnStart: history.indexOf(user),
                  writes,
                  reason: 'context_overflow',
                  target: {
                    model: decision.model,
                    context_window: decision.capabilities.max_context_tokens,
                    estimated_input_tokens: decision.estimated_input_tokens,
                    max_output_tokens: this.#maxOutputTokens(),
                  },
                  signal,
                  systemPrompt,
                  tools,
                });
            if (done) {
              stored.push(done.message);
              compactedEvent = done.event;
              try {
                input = routeInput();
                const again = this.#options.router.route(input);
                const attempt: FallbackAttempt = {
                  model: decision.model,
                  error_class: overflow.error_class,
                  reason: overflow.message,
                };
                failures.push(attempt);
                retry = { ...again, record: { ...again.record, fallback_from: [...failures] } };
              } catch (refused) {
                this.#logger.warn(
                  {
                    event: 'no_route_after_compaction',
                    session_id: sessionId,
                    reason: errorText(refused),
                  },
                  'the compacted history found no model; the context overflow stands',
                );
              }
            }
          }
          if (outcome.message) {
            // A replaced attempt stays stored (status `error`) but leaves the conversation:
            // the next model does not see it and its tool uses are not run.
            if (fallback || retry) stored.push(outcome.message);
            else keepAssistant(outcome.message);
            yield { type: 'session.assistant_message', step: steps, message: outcome.message };
          }
          if (compactedEvent) yield compactedEvent;
          if (retry) {
            decision = retry;
            continue;
          }
          if (!fallback || !outcome.error) break;
          failures.push(fallback.attempt);
          yield {
            type: 'session.fallback',
            step: steps,
            from: decision.model,
            to: fallback.decision.model,
            error_class: outcome.error.error_class,
            reason: outcome.error.message,
            discarded_message_id: outcome.message?.id ?? null,
          };
          decision = fallback.decision;
        }
        if (outcome.error) {
          failure = outcome.error;
          end = isCancelledError(outcome.error) ? 'cancelled' : 'error';
          break;
        }
        end = outcome.stop_reason;
        if (end === 'cancelled' || end === 'error') break;

        const uses = [...unanswered.values()];
        if (uses.length === 0) break;
        for (const use of uses) {
          // #runTool checks the signal before the confirmation and before the run: after a
          // cancel, the remaining calls are answered without running.
          const result = yield* pump(
            this.#runTool(session, use, signal, queue, steps, options, turn),
            queue,
          );
          await keepToolResult(use, result);
          yield {
            type: 'session.tool_result',
            step: steps,
            message: result.message,
            tool_name: use.name,
            is_error: result.is_error,
          };
        }
        if (signal.aborted) {
          end = 'cancelled';
          break;
        }
        if (steps >= maxSteps) {
          end = 'max_steps';
          this.#logger.warn(
            { event: 'max_steps', session_id: sessionId, steps },
            `the turn stopped after ${steps} model calls`,
          );
        }
      }
      if (end === 'cancelled') {
        for (const event of await answerUnanswered(steps)) yield event;
      }
      settled = true;
    } catch (error) {
      throwing = true;
      throw error;
    } finally {
      if (!settled) await finishEarly(throwing);
    }

    const costs = stored.flatMap((m) =>
      m.role === 'assistant'
        ? [m.metadata.usage?.cost_usd ?? null]
        : compactionOf(m) && m.metadata.usage
          ? [m.metadata.usage.cost_usd]
          : [],
    );
    const lastAssistant = stored.findLast((m) => m.role === 'assistant');
    const result: TurnResult = {
      session_id: sessionId,
      messages: stored,
      end,
      steps,
      cost_usd: costs.includes(null) ? null : sumCosts(costs as string[]),
      text: (lastAssistant?.content ?? [])
        .flatMap((block) => (block.type === 'text' ? [block.text] : []))
        .join(''),
      session_cost_usd: await this.#sessionCost(sessionId, writes),
      error: isCancelledError(failure) ? null : failure,
    };
    yield { type: 'session.turn_complete', result };
    if (failure && !isCancelledError(failure)) throw failure;
  }

  /**
   * The model to try after `decision` failed with `error`, or null: no error, an error class
   * no other model would fix, a cancelled turn, or no fallback configured or passing (the
   * router's `NoRouteError`; the caller then throws the original error).
   */
  #fallback(
    input: RouteInput,
    decision: RouteDecision,
    failures: readonly FallbackAttempt[],
    error: AdapterError | null,
    signal: AbortSignal,
  ): { decision: RouteDecision; attempt: FallbackAttempt } | null {
    if (!error || signal.aborted || !FALLBACK_ERROR_CLASSES.has(error.error_class)) return null;
    const attempt: FallbackAttempt = {
      model: decision.model,
      error_class: error.error_class,
      reason: error.message,
    };
    try {
      return {
        decision: this.#options.router.fallback(input, decision, [...failures, attempt]),
        attempt,
      };
    } catch (refused) {
      this.#logger.info?.(
        {
          event: 'no_fallback',
          session_id: input.session_id ?? null,
          model: decision.model,
          error_class: error.error_class,
          reason: errorText(refused),
        },
        `no fallback after ${decision.model} failed (${error.error_class})`,
      );
      return null;
    }
  }

  /**
   * Awaits `router.prepare()` once per manager, before the first routing decision, so models
   * whose capabilities are detected at run time (Ollama) can be routed to (decision 0097).
   * Detection failures are logged; routing then reports those models as "capabilities not
   * detected yet", and the next turn tries again. The wait ends when `signal` aborts.
   */
  async #prepare(signal: AbortSignal): Promise<void> {
    if (this.#prepared) return;
    if (!this.#preparing && Date.now() < this.#prepareRetryAt) return;
    let preparing = this.#preparing;
    if (!preparing) {
      preparing = this.#options.router
        .prepare({ signal })
        .then(
          (report) => {
            for (const failed of report.failed) {
              this.#logger.warn(
                {
                  event: 'capability_detection_failed',
                  model: failed.model,
                  error: failed.error.message,
                },
                `could not detect the capabilities of ${failed.model}`,
              );
            }
            if (signal.aborted) return;
            if (report.failed.length === 0) this.#prepared = true;
            else this.#prepareRetryAt = Date.now() + PREPARE_RETRY_MS;
          },
          (error: unknown) => {
            if (signal.aborted) return;
            this.#prepareRetryAt = Date.now() + PREPARE_RETRY_MS;
            this.#logger.warn(
              { event: 'router_prepare_failed', error: errorText(error) },
              'router.prepare() failed; routing goes on without it',
            );
          },
        )
        .finally(() => {
          this.#preparing = null;
        });
      this.#preparing = preparing;
    }
    await unlessAborted(preparing, signal);
  }

  /**
   * Runs the compaction hook for `target` (decision 0101) and applies what it returns: the
   * summary message is stored (with the usage and cost of the calls the hook made) and
   * `history` becomes the compacted conversation. Null when the hook cannot help. A hook that
   * throws, or returns a cut the session cannot apply, is a {@link CompactionError}.
   */
  async #compact(args: {
    session: SessionRecord;
    history: Message[];
    turnStart: number;
    writes: TurnWrites;
    reason: CompactionReason;
    target: CompactionRequest['target'];
    signal: AbortSignal;
    systemPrompt: string | null;
    tools: ToolDefinition[];
  }): Promise<{ message: Message; event: SessionEvent } | null> {
    const hook = this.#options.compaction;
    if (!hook) return null;
    const { session, history, turnStart, target, signal, systemPrompt, tools } = args;
    const { router } = this.#options;
    const adapter = router.registry.adapterFor(target.model);
    const estimateTokens = (messages: readonly Message[]) =>
      adapter.estimateInputTokens(messages, tools, systemPrompt);
    const usages: Usage[] = [];
    let summarizer: string | null = null;
    const request: CompactionRequest = {
      session,
      messages: [...history],
      turn_start: turnStart,
      reason: args.reason,
      target,
      estimateTokens,
      limitsOf: (model) => {
        const caps = router.registry.capabilitiesFor(router.registry.resolve(model));
        return {
          context_window: caps.max_context_tokens,
          max_output_tokens: caps.max_output_tokens,
        };
      },
      complete: async (call) => {
        const prompt = createMessage({
          session_id: session.id,
          role: 'user',
          content: [{ type: 'text', text: call.prompt }],
        });
        const decision = router.route({
          session_id: session.id,
          messages: [prompt],
          tools: [],
          system_prompt: call.system_prompt,
          max_output_tokens: call.max_output_tokens,
          override: call.model,
          sticky: null,
          workspace_path: session.workspace_path,
        });
        const response = await decision.adapter.complete(
          {
            request_id: newRequestId(),
            model: decision.model,
            messages: [prompt],
            system_prompt: call.system_prompt,
            max_output_tokens: call.max_output_tokens,
          },
          { signal, logger: this.#logger },
        );
        summarizer = decision.model;
        usages.push(
          buildUsage(response.usage, {
            model: decision.model,
            table: this.#options.pricing,
            latencyMs: response.latency_ms,
            logger: this.#logger,
            ...this.#options.costOptions,
          }),
        );
        return response.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
      },
      signal,
    };
    let result: Awaited<ReturnType<CompactionHook>>;
    try {
      result = await hook(request);
    } catch (error) {
      if (error instanceof CompactionError) throw error;
      if (signal.aborted) throw error;
      throw new CompactionError(`the compaction hook failed: ${errorText(error)}`, {
        cause: error,
      });
    }
    if (!result) return null;
    const at = history.findIndex((m) => m.id === result.through_message_id);
    if (at < 0 || at >= turnStart) {
      throw new CompactionError(
        `the compaction hook returned through_message_id "${result.through_message_id}", which is not a message before the current turn`,
      );
    }
    if (history[at + 1]?.role !== 'user') {
      throw new CompactionError(
        `the compaction hook cut after message ${result.through_message_id}, which is not followed by a user message: a cut must fall between turns so tool calls keep their results`,
      );
    }
    const cutAt = history[at] as Message;
    const kept = history.slice(at + 1);
    const replaced = history.slice(0, at + 1).filter((m) => !compactionOf(m)).length;
    const record: CompactionRecord = {
      through_message_id: compactionOf(cutAt)?.through_message_id ?? cutAt.id,
      strategy: result.strategy,
      replaced_messages: replaced,
      reason: args.reason,
      target_model: target.model,
      tokens_before: estimateTokens(history),
      tokens_after: 0,
    };
    const usage = combineUsages(usages);
    let message = createMessage({
      session_id: session.id,
      role: 'system',
      content: [{ type: 'text', text: result.summary }],
      metadata: {
        status: 'complete',
        compaction: record,
        ...(summarizer && usage
          ? { model: summarizer, provider: parseModelId(summarizer).provider, usage }
          : {}),
      },
    });
    record.tokens_after = estimateTokens([message, ...kept]);
    message = { ...message, metadata: { ...message.metadata, compaction: record } };
    await this.#write(args.writes, 'append', message);
    history.splice(0, history.length, message, ...kept);
    this.#logger.info?.(
      {
        event: 'session_compacted',
        session_id: session.id,
        strategy: record.strategy,
        replaced_messages: replaced,
        target_model: target.model,
        tokens_before: record.tokens_before,
        tokens_after: record.tokens_after,
      },
      `compacted ${replaced} messages to fit ${target.model}`,
    );
    return {
      message,
      event: {
        type: 'session.compacted',
        message,
        compaction: record,
        cost_usd: usage ? usage.cost_usd : null,
      },
    };
  }

  /** One model call: streams its events, stores the assistant message, emits bus events. */
  async *#call(
    decision: RouteDecision,
    history: readonly Message[],
    systemPrompt: string | null,
    toolIdMap: ToolIdMap,
    options: SendOptions,
    signal: AbortSignal,
    sessionId: string,
    queue: EventQueue,
    step: number,
    writes: TurnWrites,
  ): AsyncGenerator<SessionEvent, CallOutcome, undefined> {
    const request_id = newRequestId();
    const provider = parseModelId(decision.model).provider;
    let finalFailureEmitted = false;
    const emit = (event: BusEvent) => this.#options.bus?.emit(event);
    const failed = (
      error_class: ErrorClass,
      retry_count: number,
      final: boolean,
      provider_status: number | null,
      message: string,
    ) =>
      emit({
        type: 'llm.call_failed',
        request_id,
        session_id: sessionId,
        model: decision.model,
        provider,
        error_class,
        retry_count,
        final,
        provider_status,
        message,
        timestamp: nowTimestamp(),
      });
    const onAttempt = (attempt: AttemptEvent) => {
      const failedAttempt = attempt.type === 'attempt.failed' ? attempt : null;
      queue.push({
        type: 'session.attempt',
        step,
        model: decision.model,
        request_id,
        phase:
          attempt.type === 'attempt.start'
            ? 'start'
            : attempt.type === 'attempt.failed'
              ? 'failed'
              : 'succeeded',
        attempt: attempt.attempt,
        retry_count: attempt.retry_count,
        error_class: failedAttempt?.error.error_class ?? null,
        message: failedAttempt?.error.message ?? null,
        will_retry: failedAttempt?.will_retry ?? false,
        delay_ms: failedAttempt?.delay_ms ?? null,
      });
      if (attempt.type === 'attempt.start') {
        emit({
          type: 'llm.call_started',
          request_id,
          session_id: sessionId,
          model: decision.model,
          provider,
          attempt: attempt.attempt,
          timestamp: nowTimestamp(),
        });
      } else if (attempt.type === 'attempt.failed') {
        finalFailureEmitted ||= !attempt.will_retry;
        failed(
          attempt.error.error_class,
          attempt.retry_count,
          !attempt.will_retry,
          attempt.error.provider_status,
          attempt.error.message,
        );
      }
    };

    // The assistant message exists from the first event on, as `partial`, so a crash mid-stream
    // leaves a trace of the call; it is completed (or cancelled, or marked error) at the end.
    let message: Message | undefined;
    let started = 0;
    let complete: Extract<StreamEvent, { type: 'message.complete' }> | undefined;
    let error: AdapterError | null = null;
    try {
      const stream = decision.adapter.stream(
        {
          request_id,
          model: decision.model,
          messages: [...history],
          tools: this.#tools.definitions(),
          system_prompt: systemPrompt,
          max_output_tokens: this.#maxOutputTokens(),
          output_schema: options.output_schema ?? null,
          stream: true,
        },
        {
          signal,
          toolIdMap,
          onAttempt,
          logger: this.#logger,
          ...(options.providerOptions ? { providerOptions: options.providerOptions } : {}),
        },
      );
      // Pulled by hand rather than `for await`, so attempt events (a retry's wait happens inside
      // `next()`) are yielded while the stream is awaited, not after its next event.
      const iterator = stream[Symbol.asyncIterator]();
      for (;;) {
        const next = yield* pump(iterator.next(), queue);
        if (next.done) break;
        const event = next.value;
        if (!message) {
          started = Date.now();
          message = createMessage({
            session_id: sessionId,
            role: 'assistant',
            content: [],
            metadata: {
              status: 'partial',
              model: decision.model,
              provider,
              routing: decision.record,
            },
          });
          await this.#write(writes, 'append', message, { toolIdMap });
        }
        if (event.type === 'message.complete') complete = event;
        yield event;
      }
    } catch (thrown) {
      error = isAdapterError(thrown)
        ? thrown
        : new OtherAdapterError(String(thrown), { cause: thrown });
    }
    // Attempt events reported after the last stream event.
    for (const event of queue.drain()) yield event;

    const status: MessageStatus = error
      ? 'error'
      : complete?.stop_reason === 'cancelled'
        ? 'cancelled'
        : complete?.stop_reason === 'error'
          ? 'error'
          : 'complete';
    // (checked as unknown: a type guard would narrow the AdapterError type away)
    if (isCancelledError(error as unknown)) error = null;

    let persisted: Message | null = null;
    let invalid: InvalidReplyError | null = null;
    if (message) {
      const tokens = complete?.usage ?? ZERO_USAGE;
      const usage = buildUsage(tokens, {
        model: decision.model,
        servedModel: complete?.served_model ?? null,
        table: this.#options.pricing,
        latencyMs: complete?.latency_ms ?? Date.now() - started,
        logger: this.#logger,
        ...this.#options.costOptions,
      });
      const finalStatus = signal.aborted && status !== 'complete' ? 'cancelled' : status;
      persisted = {
        ...message,
        content: this.#freshToolIds(
          complete?.final_content ?? [],
          history,
          decision.model,
          sessionId,
        ),
        metadata: {
          ...message.metadata,
          status: finalStatus,
          usage,
          stop_reason:
            complete?.stop_reason ?? (finalStatus === 'cancelled' ? 'cancelled' : 'error'),
          ...(complete?.served_model ? { served_model: complete.served_model } : {}),
          ...(complete?.refusal ? { refusal: complete.refusal } : {}),
          ...(complete?.provider_raw ? { provider_raw: complete.provider_raw } : {}),
        },
      };
      // Every reply ends as a finished row: one that breaks an invariant is kept at `error`.
      const checked = checkReply(persisted);
      if (checked.violations.length > 0) {
        persisted = checked.message;
        invalid = this.#invalidReply(persisted, checked.violations, request_id, provider);
      }
      persisted = await this.#finishRow(writes, persisted, toolIdMap);
    }

    if (
      complete &&
      complete.stop_reason !== 'error' &&
      complete.stop_reason !== 'cancelled' &&
      !error
    ) {
      emit({
        type: 'llm.call_completed',
        request_id,
        session_id: sessionId,
        model: decision.model,
        provider,
        stop_reason: complete.stop_reason,
        usage: complete.usage,
        latency_ms: complete.latency_ms,
        retry_count: 0,
        timestamp: nowTimestamp(),
      });
    } else if (signal.aborted) {
      failed('cancelled', 0, true, null, 'cancelled');
    } else if (error && !finalFailureEmitted) {
      failed(
        error.error_class,
        Math.max(0, error.attempts - 1),
        true,
        error.provider_status,
        error.message,
      );
    }

    const stop_reason = signal.aborted ? 'cancelled' : (complete?.stop_reason ?? 'error');
    return {
      message: persisted,
      stop_reason,
      error:
        error ??
        invalid ??
        (signal.aborted ? new CancelledError('the turn was cancelled', { request_id }) : null),
    };
  }

  /** The typed error a turn ends with when its reply broke an invariant; logged at WARN. */
  #invalidReply(
    stored: Message,
    violations: readonly MessageViolation[],
    request_id: string,
    provider: string,
  ): InvalidReplyError {
    const stop_reason = stored.metadata.stop_reason ?? 'end_turn';
    const what = violations.map((v) => `${v.path}: ${v.message}`).join('; ');
    this.#logger.warn(
      {
        event: 'assistant_reply_invalid',
        session_id: stored.session_id,
        message_id: stored.id,
        model: stored.metadata.model ?? null,
        stop_reason,
        violations: violations.map((v) => ({ rule: v.rule, path: v.path })),
      },
      'stored a reply that breaks an invariant at status error; it will not be replayed',
    );
    const cut = stop_reason === 'max_tokens' ? ' (it stopped at the output token limit)' : '';
    return new InvalidReplyError(
      `the reply of ${stored.metadata.model ?? 'the model'} breaks an invariant${cut}: ${what}`,
      {
        message_id: stored.id,
        stop_reason,
        text: textOf(stored),
        violations: violations.map((v) => ({ rule: v.rule, path: v.path, message: v.message })),
        request_id,
        provider,
      },
    );
  }

  /**
   * Stores the finished reply over its `partial` row. Should the store still refuse it (an
   * input it cannot hold), the row is finished at `error` with the usage and no content, so no
   * row stays `partial` and the billed cost is counted; the refusal is then thrown.
   */
  async #finishRow(writes: TurnWrites, reply: Message, toolIdMap: ToolIdMap): Promise<Message> {
    try {
      await this.#write(writes, 'update', reply, { toolIdMap });
      return reply;
    } catch (refused) {
      if (!isYourtoolError(refused) || !STORE_INPUT_ERRORS.has(refused.code)) throw refused;
      const fallback: Message = {
        ...reply,
        content: [],
        metadata: {
          ...reply.metadata,
          status: 'error',
          error: { rule: refused.code, message: refused.message },
        },
      };
      await this.#write(writes, 'update', fallback, { toolIdMap });
      throw refused;
    }
  }

  /**
   * A provider that reuses a tool call id from an earlier reply (some OpenAI-compatible servers
   * number their calls `call_0`, `call_1`, ...) maps it onto a canonical id the history already
   * holds. Such a block gets a fresh canonical id, so every tool use stays unique.
   */
  #freshToolIds(
    content: ContentBlock[],
    history: readonly Message[],
    model: string,
    sessionId: string,
  ): ContentBlock[] {
    if (!content.some((block) => block.type === 'tool_use')) return content;
    const seen = new Set<string>();
    for (const message of history) {
      for (const block of message.content) if (block.type === 'tool_use') seen.add(block.id);
    }
    return content.map((block) => {
      if (block.type !== 'tool_use' || !seen.has(block.id)) return block;
      const id = newToolUseId();
      this.#logger.warn(
        {
          event: 'provider_reused_tool_id',
          session_id: sessionId,
          model,
          previous_id: block.id,
          new_id: id,
        },
        `${model} reused a tool call id from an earlier reply; the call was given a new canonical id`,
      );
      return { ...block, id };
    });
  }

  /** A TOOL message answering `use`. */
  #toolReply(
    session: SessionRecord,
    use: ToolUseBlock,
    content: string | ToolResultContentBlock[],
    is_error: boolean,
  ): { message: Message; is_error: boolean } {
    return {
      is_error,
      message: createMessage({
        session_id: session.id,
        role: 'tool',
        content: [toolResultBlock(use.id, content, is_error)],
        metadata: { parent_tool_use_id: use.id },
      }),
    };
  }

  /**
   * Runs one tool use and returns its result; never throws. The turn's signal is checked before
   * the confirmation and before the run, and both waits end when it aborts (decision 0067).
   */
  async #runTool(
    session: SessionRecord,
    use: ToolUseBlock,
    signal: AbortSignal,
    queue: EventQueue,
    step: number,
    options: SendOptions,
    turn: ActiveTurn,
  ): Promise<{ message: Message; is_error: boolean }> {
    const reply = (content: string | ToolResultContentBlock[], is_error: boolean) =>
      this.#toolReply(session, use, content, is_error);
    if (signal.aborted) return reply(notRunText(use.name), true);
    const tool = this.#tools.get(use.name);
    if (!tool) return reply(`There is no tool named "${use.name}".`, true);
    const checked = validateToolInput(tool.definition, use.input);
    if (!checked.ok) {
      return reply(
        `Invalid input for ${use.name}: ${checked.issues.map((i) => `${i.path} ${i.message}`).join('; ')}`,
        true,
      );
    }
    if (CONFIRMED_SIDE_EFFECTS.has(tool.definition.side_effects)) {
      const confirm: ConfirmHook | undefined = options.confirmFromStream
        ? (request) => this.#askStream(request, queue, step, turn)
        : this.#options.confirm;
      if (!confirm) {
        return reply(
          `${use.name} has ${tool.definition.side_effects} side effects and no confirmation handler is configured, so it was not run.`,
          true,
        );
      }
      let allowed: boolean | typeof ABORTED;
      try {
        allowed = await unlessAborted(
          Promise.resolve().then(() =>
            confirm({
              session_id: session.id,
              tool: use.name,
              side_effects: tool.definition.side_effects,
              input: use.input,
              tool_use_id: use.id,
              signal,
            }),
          ),
          signal,
        );
      } catch (error) {
        return reply(
          `The confirmation for ${use.name} failed (${errorText(error)}), so it was not run.`,
          true,
        );
      }
      if (allowed === ABORTED) {
        return reply(
          `The turn was cancelled while ${use.name} waited for confirmation, so it was not run.`,
          true,
        );
      }
      if (!allowed) return reply(`The user declined to run ${use.name}.`, true);
      if (signal.aborted) return reply(notRunText(use.name), true);
    }
    queue.push({
      type: 'session.tool_started',
      step,
      tool_name: use.name,
      tool_use_id: use.id,
      input: use.input,
    });
    let running = true;
    try {
      const output = await unlessAborted(
        Promise.resolve().then(() =>
          tool.run(use.input, {
            session_id: session.id,
            tool_use_id: use.id,
            workspace_path: session.workspace_path,
            signal,
            progress: (update) => {
              if (!running) return;
              queue.push({
                type: 'session.tool_progress',
                step,
                tool_name: use.name,
                tool_use_id: use.id,
                update,
              });
            },
          }),
        ),
        signal,
      );
      if (output === ABORTED) {
        return reply(
          `The turn was cancelled while ${use.name} was running; it was told to stop, and what it did before stopping is unknown.`,
          true,
        );
      }
      return reply(output, false);
    } catch (error) {
      return reply(`${use.name} failed: ${errorText(error)}`, true);
    } finally {
      running = false;
    }
  }

  /**
   * A confirmation asked from the stream (decision 0098): queues
   * `session.confirmation_requested` and resolves with its answer. The caller races it against
   * the turn's signal; the request is closed when answered or when the signal aborts.
   */
  #askStream(
    request: ConfirmationRequest,
    queue: EventQueue,
    step: number,
    turn: ActiveTurn,
  ): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const close = () => {
        turn.confirmations.delete(request.tool_use_id);
        request.signal.removeEventListener('abort', close);
      };
      const respond = (allowed: boolean): boolean => {
        if (turn.confirmations.get(request.tool_use_id) !== respond) return false;
        close();
        resolve(allowed === true);
        return true;
      };
      turn.confirmations.set(request.tool_use_id, respond);
      request.signal.addEventListener('abort', close, { once: true });
      queue.push({
        type: 'session.confirmation_requested',
        step,
        request_id: request.tool_use_id,
        tool_use_id: request.tool_use_id,
        tool_name: request.tool,
        side_effects: request.side_effects,
        input: request.input,
        respond,
      });
    });
  }

  /**
   * The session's running total cost (decision 0098): from the history this manager knows when
   * the store confirms nobody else wrote to the session since (decision 0103), else the store's
   * `sessionStats()` when it has one, else summed over the loaded messages; null when any
   * assistant message is unpriced or the figure cannot be read (logged).
   */
  async #sessionCost(sessionId: string, writes: TurnWrites): Promise<string | null> {
    const { store } = this.#options;
    const costOf = (stats: SessionStats) =>
      stats.unpriced_messages > 0 ? null : stats.total_cost_usd;
    try {
      this.#settleHistory(sessionId, writes);
      const known = this.#histories.get(sessionId);
      if (known) {
        const now = await store.getSession(sessionId);
        if (now?.revision === known.revision) return costOf(known.stats);
        this.#histories.delete(sessionId);
      }
      const stats = store.sessionStats
        ? await store.sessionStats(sessionId)
        : sessionStatsOf((await store.loadMessages(sessionId)).messages);
      return costOf(stats);
    } catch (error) {
      this.#logger.warn(
        { event: 'session_cost_unreadable', session_id: sessionId, error: errorText(error) },
        'could not read the session cost',
      );
      return null;
    }
  }

  async #session(sessionId: string): Promise<SessionRecord> {
    const session = await this.#options.store.getSession(sessionId);
    if (!session) throw new UnknownSessionError(sessionId);
    return session;
  }

  /**
   * The session's stored messages (sealed: validated, read-only) and tool id map. The copy this
   * manager keeps is used while the store's `revision` is the one its own writes made; anything
   * else (another writer, a repriced row, a store without revisions, a turn whose write failed)
   * loads the session again (decision 0103).
   */
  async #loadHistory(
    session: SessionRecord,
  ): Promise<{ messages: readonly Message[]; toolIdMap: ToolIdMap; revision: number | null }> {
    const known = this.#histories.get(session.id);
    if (known && session.revision !== undefined && known.revision === session.revision) {
      // most recently used last: the map's order is the eviction order
      this.#histories.delete(session.id);
      this.#histories.set(session.id, known);
      return known;
    }
    this.#histories.delete(session.id);
    const { store } = this.#options;
    const loaded = await store.loadMessages(session.id);
    for (const error of loaded.errors) {
      this.#logger.warn(
        { event: 'history_row_unreadable', session_id: session.id, row: error.rowId },
        error.message,
      );
    }
    const toolIdMap = await store.loadToolIdMap(session.id);
    const messages = loaded.messages.map((m) => sealMessage(m));
    const revision = session.revision ?? null;
    // a history with unreadable rows is loaded (and warned about) every turn until repaired
    const keep = this.#options.keptSessions ?? DEFAULT_KEPT_SESSIONS;
    if (revision !== null && loaded.errors.length === 0 && keep > 0) {
      this.#histories.set(session.id, {
        revision,
        messages,
        toolIdMap,
        stats: sessionStatsOf(messages),
      });
      for (const oldest of this.#histories.keys()) {
        if (this.#histories.size <= keep) break;
        this.#histories.delete(oldest);
      }
    }
    return { messages, toolIdMap, revision };
  }

  /** Appends or updates a message of the turn's session, recording the write (decision 0103). */
  async #write(
    writes: TurnWrites,
    kind: 'append' | 'update',
    message: Message,
    options?: AppendMessageOptions,
  ): Promise<void> {
    const { store } = this.#options;
    if (kind === 'update' && !writes.messages.has(message.id)) writes.failed = true;
    try {
      if (kind === 'append') await store.appendMessage(message, options);
      else await store.updateMessage(message, options);
    } catch (error) {
      // whether the store counted it is unknown: the next turn loads the session again
      writes.failed = true;
      throw error;
    }
    writes.count++;
    writes.messages.set(message.id, message);
  }

  /**
   * Brings the known history of a session up to date with what a turn wrote (once per turn):
   * its messages, read back as the store would read them, join the sealed copy in the store's
   * order, and the expected revision moves by the number of writes. A failed write, or a turn
   * that started from a history this manager does not keep, forgets the session.
   */
  #settleHistory(sessionId: string, writes: TurnWrites): void {
    if (writes.settled) return;
    writes.settled = true;
    const known = this.#histories.get(sessionId);
    if (!known) return;
    if (writes.failed || writes.start !== known.revision) {
      this.#histories.delete(sessionId);
      return;
    }
    if (writes.count === 0) return;
    try {
      const added = [...writes.messages.values()]
        .map((m) => sealMessage(parseMessage(JSON.stringify(m))))
        .sort(storeOrder);
      const [first] = added;
      const last = known.messages.at(-1);
      if (first && last && storeOrder(last, first) > 0) {
        known.messages = [...known.messages, ...added].sort(storeOrder);
        known.stats = sessionStatsOf(known.messages);
      } else {
        known.messages = [...known.messages, ...added];
        known.stats = combineStats(known.stats, sessionStatsOf(added));
      }
      known.revision += writes.count;
    } catch (error) {
      this.#histories.delete(sessionId);
      this.#logger.warn(
        { event: 'history_cache_dropped', session_id: sessionId, error: errorText(error) },
        'the session will be loaded again next turn',
      );
    }
  }

  #systemPrompt(session: SessionRecord): string | null {
    const parts = (this.#options.systemPrompt ?? [])
      .map((part) => (typeof part === 'string' ? part : part({ session })))
      .filter((p): p is string => typeof p === 'string' && p.trim() !== '');
    return parts.length > 0 ? parts.join('\n\n') : null;
  }

  #maxOutputTokens(): number {
    return this.#options.maxOutputTokens ?? 4096;
  }
}

interface CallOutcome {
  message: Message | null;
  stop_reason: TurnEnd;
  error: AdapterError | null;
}

/** A session's history as a manager last loaded and wrote it (decision 0103). */
interface KnownHistory {
  /** The store's `revision` of the session that this copy matches. */
  revision: number;
  /** Every stored message of the session, in the store's order, sealed. */
  messages: Message[];
  toolIdMap: ToolIdMap;
  /** The session's figures over `messages`. */
  stats: SessionStats;
}

/** What one turn wrote to its session, to bring the known history up to date at its end. */
class TurnWrites {
  /** The revision the turn's history was loaded at; null when it was not kept. */
  start: number | null = null;
  /** Successful appends and updates. */
  count = 0;
  /** A write failed, or updated a message this turn did not append: forget the session. */
  failed = false;
  /** Whether the known history took these writes in already. */
  settled = false;
  /** The final state of every message written, by id. */
  readonly messages = new Map<string, Message>();
}

/** The store's load order: `created_at`, then id. */
function storeOrder(a: Message, b: Message): number {
  const at = timestampToEpochMicros(a.created_at) - timestampToEpochMicros(b.created_at);
  if (at !== 0) return at;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** The figures of two runs of messages, one after the other. */
function combineStats(before: SessionStats, after: SessionStats): SessionStats {
  return {
    message_count: before.message_count + after.message_count,
    last_model: after.last_model ?? before.last_model,
    total_cost_usd: sumDecimalStrings([before.total_cost_usd, after.total_cost_usd]),
    unpriced_messages: before.unpriced_messages + after.unpriced_messages,
  };
}

/**
 * The history without the attempts a fallback replaced (decision 0096): an assistant row with
 * status `error` followed (directly, or through other such rows) by an assistant row whose
 * routing record has `fallback_from`. Those rows stay stored, for the record and their cost,
 * but are not replayed: the conversation went on with the fallback's reply.
 */
function withoutReplacedAttempts(messages: readonly Message[]): Message[] {
  const kept: Message[] = [];
  let replacing = false;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i] as Message;
    const isAssistant = message.role === 'assistant';
    if (replacing && isAssistant && message.metadata.status === 'error') continue;
    if (compactionOf(message)) {
      // a summary stored between a failed attempt and its fallback does not end the pair
      kept.push(message);
      continue;
    }
    replacing = isAssistant && (message.metadata.routing?.fallback_from?.length ?? 0) > 0;
    kept.push(message);
  }
  return kept.reverse();
}

/** The usages of a compaction's calls as one (tokens and costs summed), or null for none. */
function combineUsages(usages: readonly Usage[]): Usage | null {
  const [first] = usages;
  if (!first) return null;
  if (usages.length === 1) return first;
  const costs = usages.map((u) => u.cost_usd);
  const sum = (pick: (u: Usage) => number) => usages.reduce((n, u) => n + pick(u), 0);
  return {
    input_tokens: sum((u) => u.input_tokens),
    output_tokens: sum((u) => u.output_tokens),
    cached_input_tokens: sum((u) => u.cached_input_tokens),
    cache_creation_input_tokens: sum((u) => u.cache_creation_input_tokens),
    cost_usd: costs.includes(null) ? null : sumCosts(costs as string[]),
    pricing_version: first.pricing_version,
    latency_ms: sum((u) => u.latency_ms),
  };
}

/** The conversation stored messages amount to: replaced attempts out, the latest compaction applied. */
function conversationOf(messages: readonly Message[]): Message[] {
  return compactedConversation(withoutReplacedAttempts(messages));
}

/**
 * The first candidate a routing error rejected for its context window alone (the router's
 * `RouteTraceEntry.context_limited`), as a compaction target; null for any other error.
 */
function contextLimitedTarget(error: unknown): CompactionRequest['target'] | null {
  if (!(error instanceof Error) || !('trace' in error) || !Array.isArray(error.trace)) return null;
  for (const entry of error.trace as RouteTraceEntry[]) {
    if (entry.model && entry.context_limited)
      return { model: entry.model, ...entry.context_limited };
  }
  return null;
}

/** The message of a thrown value, for a tool result. */
function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
