import {
  type AppendMessageOptions,
  isYourtoolError,
  type Logger,
  type Message,
  type SessionStore,
  ToolIdMap,
  type ToolUseBlock,
  YourtoolError,
} from '@yourtool/core';
import type { SessionEvent } from './events.js';
import type { TurnWriteRecord } from './history-cache.js';
import { sealedCopy, storedCopy } from './stored-copy.js';
import { notRunReply } from './tool-reply.js';
import { TurnLeaseHolder, type TurnLeaseSettings } from './turn-lease.js';

/** Codes of the store errors that refuse what a message holds (not a failing database). */
const STORE_INPUT_ERRORS = new Set(['invalid_message', 'json_too_deep', 'invalid_store_input']);

/** What a turn's log is made with: its store and session, and how it holds its lease. */
export interface TurnLogOptions {
  store: SessionStore;
  sessionId: string;
  /** How the turn's lease lives (decision 0156); unused by a store that keeps no leases. */
  lease: TurnLeaseSettings;
  logger: Logger;
  /** Called when a heartbeat finds the lease taken by another turn: it cancels the turn. */
  onLost: (error: unknown) => void;
}

/** What a turn starts from, when it opens. */
export interface OpenedTurn {
  /** The store's revision the history was loaded at; null when it is not known to match. */
  revision: number | null;
  toolIdMap: ToolIdMap;
  /** The conversation the turn's calls send; kept messages join it as stored. */
  conversation: Message[];
  /** The turn's user message, stored once routing found a model ({@link TurnLog.keepUser}). */
  user: Message;
  /**
   * Whether `user` is known to keep the format's rules (text the session built itself), so
   * the store takes a sealed copy without checking it again; otherwise the store checks it.
   */
  userChecked: boolean;
}

/** A turn's user message was to be stored before the turn opened (a bug in the session). */
export class TurnLogNotOpenError extends YourtoolError {
  constructor() {
    super(
      'turn_log_not_open',
      'the turn log was asked to store the user message before the turn opened',
    );
  }
}

/**
 * Every write of one turn to its session (decision 0162): the user message, the reply's
 * `partial` row and its finishing write, the tool results, a compaction's summary and the
 * "not run" results of unanswered tool uses, each in one method, with the turn's lease on the
 * session (decision 0156). It keeps the one stored copy of each message (sealed, as a later
 * load reads it), which the conversation takes; the turn's result (`messages`, in the order
 * written, as the turn built them); the tool uses still waiting for a result; and what the
 * history cache needs to take the writes in at the turn's end.
 */
export class TurnLog implements TurnWriteRecord {
  /** The revision the turn's history was loaded at; null when it is not known to match. */
  start: number | null = null;
  /** Successful appends and updates. */
  count = 0;
  /** A write failed, or updated a message this turn did not append: forget the session. */
  failed = false;
  /** Whether the history cache took these writes in already. */
  settled = false;
  /**
   * The session's revision as the last write left it, when the store reports it
   * (`onRevision`); null before a write, or from a store that does not.
   */
  lastRevision: number | null = null;
  /** The stored copy of every message written, by id (sealed, as a later load reads it). */
  readonly storedCopies = new Map<string, Message>();
  readonly #messages: Message[] = [];
  readonly #unanswered = new Map<string, ToolUseBlock>();
  #toolIdMap = new ToolIdMap();
  readonly #store: SessionStore;
  readonly #sessionId: string;
  readonly #lease: TurnLeaseHolder | null;
  /** The conversation the turn's next call sends; kept messages join it as stored. */
  #conversation: Message[] = [];
  /** The user message to store, and whether the session checked it. */
  #user: { message: Message; checked: boolean } | null = null;
  /** The order each message was first written in, by id. */
  readonly #order = new Map<string, number>();

  constructor(options: TurnLogOptions) {
    const { store, sessionId, lease, logger, onLost } = options;
    this.#store = store;
    this.#sessionId = sessionId;
    this.#lease = TurnLeaseHolder.for(store, { sessionId, settings: lease, logger, onLost });
  }

  /** Messages this turn stored, in the order first written, as the turn built them. */
  get messages(): readonly Message[] {
    return this.#messages;
  }

  /**
   * Tool uses of this turn's kept replies with no stored result yet: a cancelled or abandoned
   * turn answers them ({@link answerUnanswered}), so every tool use keeps its result.
   */
  get unanswered(): ReadonlyMap<string, ToolUseBlock> {
    return this.#unanswered;
  }

  /** The session's tool id map, as loaded when the turn opened; the replies' rows store it. */
  get toolIdMap(): ToolIdMap {
    return this.#toolIdMap;
  }

  /** The id of this turn's lease; null when the store keeps no leases. */
  get leaseId(): string | null {
    return this.#lease?.lease.id ?? null;
  }

  /** At the turn's opening: the history it starts from, and the conversation it goes on. */
  open(opened: OpenedTurn): void {
    this.start = opened.revision;
    this.#toolIdMap = opened.toolIdMap;
    this.#conversation = opened.conversation;
    this.#user = { message: opened.user, checked: opened.userChecked };
  }

  /**
   * Stores the turn's user message (a sealed copy when the session built it; else for the
   * store to check); the conversation takes the stored copy in its place. Returns the
   * message as the turn built it.
   */
  async keepUser(): Promise<Message> {
    if (!this.#user) throw new TurnLogNotOpenError();
    const { message, checked } = this.#user;
    const kept = await this.#write('append', checked ? sealedCopy(message) : message);
    const at = this.#conversation.indexOf(message);
    if (at >= 0) this.#conversation[at] = kept;
    this.#keep(message);
    return message;
  }

  /** Stores a reply's `partial` row (decision 0148), unsealed: the store checks it. */
  async writePartial(message: Message): Promise<void> {
    await this.#write('append', message, { toolIdMap: this.#toolIdMap });
  }

  /**
   * Stores a finished reply: over its `partial` row when `replaces`, else as a new row
   * (decision 0148). A sealed copy when it passed the check (`valid`: the store does not check
   * it again), else as it is, for the store's full guard. Should the store still refuse it (an
   * input it cannot hold), the row is finished at `error` with the usage and no content, so no
   * row stays `partial` and the billed cost is counted; the refusal is then thrown.
   */
  async finishReply(reply: Message, how: { valid: boolean; replaces: boolean }): Promise<void> {
    const options = { toolIdMap: this.#toolIdMap };
    // a refused write writes nothing: the second one replaces or appends as the first did
    const kind = how.replaces ? 'update' : 'append';
    try {
      await this.#write(kind, how.valid ? sealedCopy(reply) : reply, options);
    } catch (refused) {
      if (!isYourtoolError(refused) || !STORE_INPUT_ERRORS.has(refused.code)) throw refused;
      const error = { rule: refused.code, message: refused.message };
      const row: Message = {
        ...reply,
        content: [],
        metadata: { ...reply.metadata, status: 'error', error },
      };
      await this.#write(kind, row, options);
      throw refused;
    }
  }

  /**
   * A stored reply joins the turn: the conversation takes its stored copy (the next request
   * does not check it again), the result the turn's copy, and its tool uses wait for results.
   */
  keepReply(message: Message): void {
    this.#conversation.push(this.storedCopies.get(message.id) ?? message);
    this.#keep(message);
    for (const block of message.content) {
      if (block.type === 'tool_use') this.#unanswered.set(block.id, block);
    }
  }

  /**
   * A stored reply that a fallback or a retry replaced (decision 0096): it stays in the
   * turn's result, in the order it was written, but leaves the conversation, and its tool uses
   * are not run.
   */
  keepReplaced(message: Message): void {
    this.#keep(message);
  }

  /** Stores a tool's result message; it joins the conversation (as stored) and answers its use. */
  async keepToolResult(use: ToolUseBlock, message: Message): Promise<void> {
    const kept = await this.#write('append', message);
    this.#unanswered.delete(use.id);
    this.#conversation.push(kept);
    this.#keep(message);
  }

  /**
   * Stores a message the turn adds after a reply (the repair policy's user message, or the
   * output tool's result); it joins the conversation as stored.
   */
  async keepFollowUp(message: Message): Promise<void> {
    const kept = await this.#write('append', message);
    this.#conversation.push(kept);
    this.#keep(message);
  }

  /** Stores a compaction's summary (decision 0101); the caller puts it in the conversation. */
  async keepSummary(message: Message): Promise<void> {
    await this.#write('append', message);
    this.#keep(message);
  }

  /** Stores a "not run" result for every unanswered tool use; returns their events. */
  async answerUnanswered(step: number): Promise<SessionEvent[]> {
    const events: SessionEvent[] = [];
    for (const use of [...this.#unanswered.values()]) {
      const result = notRunReply({ id: this.#sessionId }, use);
      await this.keepToolResult(use, result.message);
      events.push({
        type: 'session.tool_result',
        step,
        message: result.message,
        tool_name: use.name,
        is_error: true,
      });
    }
    return events;
  }

  /** At the turn's end: releases the lease when it is still held (a turn that ended early). */
  async end(): Promise<void> {
    await this.#lease?.end();
  }

  /** Adds a message to the turn's result, after every message written before it. */
  #keep(message: Message): void {
    const at = this.#order.get(message.id) ?? Number.POSITIVE_INFINITY;
    const messages = this.#messages;
    let i = messages.length;
    while (i > 0 && (this.#order.get((messages[i - 1] as Message).id) ?? -1) > at) i--;
    messages.splice(i, 0, message);
  }

  /** One write: the lease taken, held or released with it; resolves to the stored copy. */
  async #write(
    kind: 'append' | 'update',
    message: Message,
    options?: AppendMessageOptions,
  ): Promise<Message> {
    if (kind === 'update' && !this.storedCopies.has(message.id)) this.failed = true;
    let revision: number | null = null;
    const lease = this.#lease?.writeFor(message);
    const heard = { ...options, onRevision: (r: number) => (revision = r), lease };
    let result: unknown;
    try {
      result =
        kind === 'append'
          ? await this.#store.appendMessage(message, heard)
          : await this.#store.updateMessage(message, heard);
    } catch (error) {
      // whether the store counted it is unknown: the next turn loads the session again
      this.failed = true;
      throw lease && this.#lease ? this.#lease.failed(lease, error) : error;
    }
    if (lease) this.#lease?.wrote(lease);
    const stored = storedCopy(result, message);
    this.lastRevision = revision;
    this.count++;
    this.storedCopies.set(message.id, stored);
    if (!this.#order.has(message.id)) this.#order.set(message.id, this.#order.size);
    return stored;
  }
}
