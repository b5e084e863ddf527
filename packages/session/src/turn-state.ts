import {
  type AdapterError,
  type ContentBlock,
  CURRENT_SCHEMA_VERSION,
  createMessage,
  type Message,
  newMessageId,
  nowTimestamp,
  type OutputValidationError,
  type SessionRecord,
  type ToolDefinition,
  TurnLeaseHeldError,
} from '@yourtool/core';
import type { SealedPrefixMemo } from '@yourtool/core/adapter';
import type { RouteDecision, RouteInput } from '@yourtool/router';
import { UnknownSessionError } from './errors.js';
import { EventQueue } from './event-queue.js';
import type { SessionEvent, TurnEnd } from './events.js';
import type { HistoryCache } from './history-cache.js';
import type { LastCuts } from './last-cuts.js';
import type { SendOptions, SystemPromptPart } from './options.js';
import type { RouterPreparation } from './prepare.js';
import type { TurnTelemetry } from './telemetry.js';
import type { TurnLog } from './turn-log.js';
import { type ObjectRead, TurnOutput } from './turn-output.js';
import type { ManagerSettings } from './validate-options.js';

/**
 * What every turn of a manager shares: its settings, the history cache, the router's
 * preparation, and what the manager remembers between turns (decision 0165: it owns them).
 */
export interface ManagerContext {
  readonly settings: ManagerSettings;
  readonly histories: HistoryCache;
  readonly preparation: RouterPreparation;
  /** The last cut of each session (decision 0155). */
  readonly cuts: LastCuts;
  /** The tool use ids of each history's sealed messages (decision 0148). */
  readonly sealedToolUseIds: SealedPrefixMemo<Set<string>>;
}

/** A running turn as the manager tracks it, to cancel it and answer its confirmations. */
export interface ActiveTurn {
  readonly controller: AbortController;
  /** Open stream confirmations of the turn, by tool use id: each answers its request. */
  readonly confirmations: Map<string, (allowed: boolean) => boolean>;
  /** Every write of the turn to its session, with its lease (decision 0162). */
  readonly log: TurnLog;
}

/** One routing decision and the input it was made on (a fallback reuses the input). */
export interface RoutedStep {
  input: RouteInput;
  decision: RouteDecision;
}

/** How one model call ended: its stored assistant message (if any) and why it stopped. */
export interface CallOutcome {
  message: Message | null;
  stop_reason: TurnEnd;
  error: AdapterError | null;
  /** The object read from the reply, when the turn asks for one and the reply finished. */
  object?: ObjectRead | null;
}

/**
 * What a turn was asked and opened with, fixed for the whole turn: the session as it was read,
 * the options it was sent with, the system prompt and tools every call sends, and its user
 * message.
 */
export interface TurnInputs {
  readonly session: SessionRecord;
  readonly options: SendOptions;
  readonly systemPrompt: string | null;
  readonly tools: ToolDefinition[];
  /** The turn's user message (stored once routing found a model). */
  readonly user: Message;
  /** The object the turn asks for (`output`), or null. */
  readonly output: TurnOutput | null;
}

/**
 * What the turn's loop works on; each step of the turn reads and advances it. What the turn
 * stored, and the tool uses waiting for results, are in its log; what it was asked is in its
 * inputs, which do not change.
 */
export interface TurnState {
  readonly manager: ManagerContext;
  readonly active: ActiveTurn;
  readonly inputs: TurnInputs;
  readonly signal: AbortSignal;
  /** Events produced while the turn awaits something, yielded in order. */
  readonly queue: EventQueue;
  /** Every write of the turn (decision 0162): what it stored, its unanswered tool uses. */
  readonly log: TurnLog;
  /** The conversation the next call sends: replaced attempts out, compaction applied. */
  readonly history: Message[];
  /** Events of a compaction made while routing, yielded before the step's own events. */
  readonly pending: SessionEvent[];
  /** Model calls made (fallback calls within a step not counted). */
  steps: number;
  end: TurnEnd;
  /** The error that ended the turn, if one did. */
  failure: AdapterError | OutputValidationError | null;
  /** The model call in progress, so a turn left early can end it. */
  call: AsyncGenerator<SessionEvent, CallOutcome, undefined> | null;
  /** The decision made before the user message was stored, used by the first step. */
  firstRoute: RoutedStep | null;
  /** The turn's OpenTelemetry spans; null when no tracer provider is registered. */
  readonly telemetry: TurnTelemetry | null;
}

/**
 * What routing the turn's next call reads of the turn: the manager, the request's inputs and
 * the history as it is now. The files that route and fit the history take this, not the
 * whole {@link TurnState}.
 */
export interface RoutingTurn {
  readonly manager: ManagerContext;
  readonly inputs: TurnInputs;
  readonly history: Message[];
}

/** What `send()` was asked. */
export interface TurnRequest {
  sessionId: string;
  input: string | ContentBlock[];
  options: SendOptions;
}

/** The session record, or {@link UnknownSessionError}. */
export async function sessionOf(manager: ManagerContext, sessionId: string) {
  const session = await manager.settings.store.getSession(sessionId);
  if (!session) throw new UnknownSessionError(sessionId);
  return session;
}

function unknownSession(sessionId: string): never {
  throw new UnknownSessionError(sessionId);
}

/** The system prompt of a turn: its parts in order, empty ones left out, or null for none. */
export function composeSystemPrompt(
  parts: readonly SystemPromptPart[],
  session: SessionRecord,
): string | null {
  const texts = parts
    .map((part) => (typeof part === 'string' ? part : part({ session })))
    .filter((p): p is string => typeof p === 'string' && p.trim() !== '');
  return texts.length > 0 ? texts.join('\n\n') : null;
}

/**
 * Opens a turn: reads the session and its history (kept or loaded), and builds the user
 * message, which joins the history in memory only; it is stored once routing found a model.
 */
export async function openTurn(
  manager: ManagerContext,
  active: ActiveTurn,
  request: TurnRequest,
  opened: { telemetry: TurnTelemetry | null; session?: Promise<SessionRecord | null> | undefined },
): Promise<TurnState> {
  const { settings } = manager;
  const { telemetry } = opened;
  // a schema or repair policy it cannot use is refused before anything is read or stored
  const output = TurnOutput.open(request.options);
  // the session as the turn's telemetry read it just before, else read now
  const session = opened.session
    ? ((await opened.session) ?? unknownSession(request.sessionId))
    : await sessionOf(manager, request.sessionId);
  // another turn holds the session (decision 0156): refused before loading and routing
  const held = session.turn_lease;
  if (held && held.expires_in_ms > 0 && held.id !== active.log.leaseId) {
    throw new TurnLeaseHeldError(session.id, held.expires_in_ms);
  }
  const loaded = await manager.histories.load(session);
  const userChecked = typeof request.input === 'string';
  const user =
    typeof request.input === 'string'
      ? userTextMessage(session.id, request.input)
      : createMessage({ session_id: session.id, role: 'user', content: request.input });
  const history = [...loaded.conversation, user];
  const { revision, toolIdMap } = loaded;
  active.log.open({ revision, toolIdMap, conversation: history, user, userChecked });
  return {
    manager,
    active,
    inputs: {
      session,
      options: request.options,
      systemPrompt: composeSystemPrompt(settings.systemPrompt, session),
      tools: settings.tools.definitions(),
      user,
      output,
    },
    signal: active.controller.signal,
    queue: new EventQueue(),
    log: active.log,
    history,
    pending: [],
    steps: 0,
    end: 'end_turn',
    failure: null,
    call: null,
    firstRoute: null,
    telemetry,
  };
}

/**
 * The user message of a turn sent as text: what `createMessage` makes of it, built directly.
 * It keeps every rule of the format by construction (a new ULID, the current time, one text
 * block, `status: complete`), so nothing parses it (decision 0148).
 */
export function userTextMessage(sessionId: string, text: string): Message {
  return {
    id: newMessageId(),
    session_id: sessionId,
    role: 'user',
    content: [{ type: 'text', text }],
    metadata: { status: 'complete' },
    created_at: nowTimestamp(),
    schema_version: CURRENT_SCHEMA_VERSION,
  };
}

/** What routing is asked for the turn's next call, on the history as it is now. */
export function routeInputOf(state: RoutingTurn): RouteInput {
  const { options, session } = state.inputs;
  return {
    session_id: session.id,
    messages: [...state.history],
    tools: state.inputs.tools,
    system_prompt: state.inputs.systemPrompt,
    output_schema: state.inputs.output?.schema.jsonSchema ?? options.output_schema ?? null,
    max_output_tokens: state.manager.settings.maxOutputTokens,
    thinking: options.thinking ?? false,
    override: options.model ?? null,
    sticky: session.active_model,
    tier: options.tier ?? null,
    workspace_path: session.workspace_path,
    ...(options.fallthrough !== undefined ? { fallthrough: options.fallthrough } : {}),
  };
}

/** Where the turn's user message stands in the conversation (compaction may have moved it). */
export function turnStart(state: Pick<RoutingTurn, 'history' | 'inputs'>): number {
  return state.history.findIndex((m) => m.id === state.inputs.user.id);
}
