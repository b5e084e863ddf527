import {
  type AdapterError,
  type ContentBlock,
  CURRENT_SCHEMA_VERSION,
  createMessage,
  type Message,
  newMessageId,
  nowTimestamp,
  type SessionRecord,
  type ToolDefinition,
  type ToolIdMap,
  type ToolUseBlock,
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
import { notRunReply } from './tool-step.js';
import type { TurnWrites } from './turn-writes.js';
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
  /** What the turn wrote to its session. */
  readonly writes: TurnWrites;
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
}

/** Everything one turn works on; each step of the turn reads and advances it. */
export interface TurnState {
  readonly manager: ManagerContext;
  readonly active: ActiveTurn;
  readonly session: SessionRecord;
  readonly options: SendOptions;
  readonly signal: AbortSignal;
  /** Events produced while the turn awaits something, yielded in order. */
  readonly queue: EventQueue;
  readonly writes: TurnWrites;
  /** The conversation the next call sends: replaced attempts out, compaction applied. */
  readonly history: Message[];
  readonly toolIdMap: ToolIdMap;
  readonly systemPrompt: string | null;
  readonly tools: ToolDefinition[];
  /** The turn's user message (stored once routing found a model). */
  readonly user: Message;
  /**
   * Whether `user` is known to keep the format's rules (text the session built itself), so
   * the store takes a sealed copy without checking it again; otherwise the store checks it.
   */
  readonly userChecked: boolean;
  /** Messages this turn stored, in order. */
  readonly stored: Message[];
  /**
   * Tool uses of this turn's stored assistant messages with no stored result yet: a cancelled
   * or abandoned turn answers them, so every tool use in the history keeps its result.
   */
  readonly unanswered: Map<string, ToolUseBlock>;
  /** Events of a compaction made while routing, yielded before the step's own events. */
  readonly pending: SessionEvent[];
  /** Model calls made (fallback calls within a step not counted). */
  steps: number;
  end: TurnEnd;
  /** The error that ended the turn, if one did. */
  failure: AdapterError | null;
  /** The model call in progress, so a turn left early can end it. */
  call: AsyncGenerator<SessionEvent, CallOutcome, undefined> | null;
  /** The decision made before the user message was stored, used by the first step. */
  firstRoute: RoutedStep | null;
  /** The turn's OpenTelemetry spans; null when no tracer provider is registered. */
  readonly telemetry: TurnTelemetry | null;
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
  telemetry: TurnTelemetry | null = null,
): Promise<TurnState> {
  const { settings } = manager;
  const session = await sessionOf(manager, request.sessionId);
  // another turn holds the session (decision 0156): refused before loading and routing
  const held = session.turn_lease;
  if (held && held.expires_in_ms > 0 && held.id !== active.writes.lease?.lease.id) {
    throw new TurnLeaseHeldError(session.id, held.expires_in_ms);
  }
  const loaded = await manager.histories.load(session);
  active.writes.start = loaded.revision;
  const userChecked = typeof request.input === 'string';
  const user =
    typeof request.input === 'string'
      ? userTextMessage(session.id, request.input)
      : createMessage({ session_id: session.id, role: 'user', content: request.input });
  return {
    manager,
    active,
    session,
    options: request.options,
    signal: active.controller.signal,
    queue: new EventQueue(),
    writes: active.writes,
    history: [...loaded.conversation, user],
    toolIdMap: loaded.toolIdMap,
    systemPrompt: composeSystemPrompt(settings.systemPrompt, session),
    tools: settings.tools.definitions(),
    user,
    userChecked,
    stored: [],
    unanswered: new Map(),
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
export function routeInputOf(state: TurnState): RouteInput {
  const { options, session } = state;
  return {
    session_id: session.id,
    messages: [...state.history],
    tools: state.tools,
    system_prompt: state.systemPrompt,
    output_schema: options.output_schema ?? null,
    max_output_tokens: state.manager.settings.maxOutputTokens,
    thinking: options.thinking ?? false,
    override: options.model ?? null,
    sticky: session.active_model,
    tier: options.tier ?? null,
    workspace_path: session.workspace_path,
    ...(options.fallthrough !== undefined ? { fallthrough: options.fallthrough } : {}),
  };
}

/**
 * An assistant message joins the conversation; its tool uses wait for their results. The
 * conversation takes the stored (sealed) copy, so the turn's next request does not check it
 * again; the caller's copy goes to the turn's result.
 */
export function keepAssistant(state: TurnState, message: Message): void {
  state.history.push(state.writes.messages.get(message.id) ?? message);
  state.stored.push(message);
  for (const block of message.content) {
    if (block.type === 'tool_use') state.unanswered.set(block.id, block);
  }
}

/** Stores a tool's result message; it joins the conversation (as stored) and answers its use. */
export async function keepToolResult(
  state: TurnState,
  use: ToolUseBlock,
  message: Message,
): Promise<void> {
  const kept = await state.writes.append(message);
  state.unanswered.delete(use.id);
  state.history.push(kept);
  state.stored.push(message);
}

/** Where the turn's user message stands in the conversation (compaction may have moved it). */
export function turnStart(state: TurnState): number {
  return state.history.findIndex((m) => m.id === state.user.id);
}

/** Stores a "not run" result for every unanswered tool use; returns their events. */
export async function answerUnanswered(state: TurnState): Promise<SessionEvent[]> {
  const events: SessionEvent[] = [];
  for (const use of [...state.unanswered.values()]) {
    const result = notRunReply(state.session, use);
    await keepToolResult(state, use, result.message);
    events.push({
      type: 'session.tool_result',
      step: state.steps,
      message: result.message,
      tool_name: use.name,
      is_error: true,
    });
  }
  return events;
}
