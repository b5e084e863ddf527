import type { SessionStore } from '@yourtool/core';
import {
  type ConfirmationRequest,
  type SendOptions,
  type SessionManager,
  TurnInProgressError,
} from '@yourtool/session';
import type { ApprovalStore } from './approval-store.js';
import { waitForApproval } from './approval-wait.js';
import { readChatRequest } from './chat-request.js';
import type { UiChunk, UiProtocol } from './chunks.js';
import { errorResponse } from './error-response.js';
import { publicErrorText } from './error-text.js';
import { ChatRequestError, RegenerateRefusedError } from './errors.js';
import { type ChatUiMessage, historyToUiMessages } from './history.js';
import { LiveTurn } from './live-turn.js';
import { userIdOfReply } from './reply-ids.js';
import { uiStreamResponse } from './sse.js';
import { tailTurn } from './store-tail.js';

/** Options of {@link ChatBridge}. */
export interface ChatBridgeOptions {
  /** The session manager running turns (`runtime.sessions`). */
  sessions: SessionManager;
  /** The store the sessions live in (`runtime.store`). */
  store: SessionStore;
  /** Where approvals wait for their answers: shared by every instance serving the sessions. */
  approvals: ApprovalStore;
  /** Which `ai` major the client runs (default `'ai7'`). */
  protocol?: UiProtocol;
  /**
   * How long a turn waits for an approval's answer before the tool is reported not run, in ms
   * (default 600000, ten minutes). The session stays taken meanwhile (its lease is renewed).
   */
  approvalDeadlineMs?: number;
  /** How often the store is read for an answer or another instance's progress, in ms (default 250). */
  pollMs?: number;
}

/** Per request: which session the chat is, and the turn's options (a model, a tier). */
export interface ChatTurnOptions {
  sessionId: string;
  send?: Omit<SendOptions, 'signal' | 'confirmFromStream'>;
}

/**
 * Serves `useChat`: turns of a stored session streamed as the AI SDK UI message stream, tool
 * approvals answered in later requests (at any instance, through {@link ApprovalStore}), and
 * the stored history as UI messages for a reload. Pass {@link ChatBridge.confirm} as the
 * runtime's `confirm` hook.
 */
export class ChatBridge {
  readonly #options: Required<ChatBridgeOptions>;
  readonly #live = new Map<string, LiveTurn>();

  /** Checks nothing that needs the store; call {@link ChatBridge.respond} per request. */
  constructor(options: ChatBridgeOptions) {
    this.#options = { protocol: 'ai7', approvalDeadlineMs: 600_000, pollMs: 250, ...options };
  }

  /**
   * The `confirm` hook (`createRuntime({ confirm: (r) => bridge.confirm(r) })`): records the
   * approval, tells the attached client, and waits for an answer in the store until the
   * deadline (then throws, so the tool is reported not run) or the turn's end.
   */
  confirm = (request: ConfirmationRequest): Promise<boolean> => {
    const live = this.#live.get(request.session_id);
    const { approvals, approvalDeadlineMs, pollMs } = this.#options;
    return waitForApproval(request, {
      approvals,
      deadlineMs: approvalDeadlineMs,
      pollMs,
      onAsked: () => live?.askApproval(request.tool_use_id),
      onDenied: () => live?.denied.add(request.tool_use_id),
    });
  };

  /** Answers a fetch `Request` (a Next.js route handler's): its JSON body is a `useChat` POST. */
  async handle(request: Request, options: ChatTurnOptions): Promise<Response> {
    let body: unknown;
    try {
      body = await request.json();
    } catch {
      return errorResponse(new ChatRequestError('body', 'expected JSON'));
    }
    return this.respond(body, options);
  }

  /**
   * Answers a `useChat` POST body: a new user message starts a turn; approval answers go to
   * the waiting turn (streamed live when it runs here, read from the store when it runs
   * elsewhere); a regenerate is refused (409). Bad bodies get 400 naming the field.
   */
  async respond(body: unknown, options: ChatTurnOptions): Promise<Response> {
    try {
      const request = readChatRequest(body);
      if (request.kind === 'regenerate') {
        throw new RegenerateRefusedError(request.messageId, userIdOfReply(request.messageId));
      }
      if (request.kind === 'message') return this.#startTurn(request.text, options);
      return await this.#continueTurn(options.sessionId, request.replyId, request.answers);
    } catch (error) {
      return errorResponse(error);
    }
  }

  /** A session's stored history as `useChat` messages (decision 0178), for a page reload. */
  async history(sessionId: string): Promise<ChatUiMessage[]> {
    const { messages } = await this.#options.store.loadMessages(sessionId);
    const denied = new Set<string>();
    for (const m of messages) {
      for (const b of m.content) {
        if (b.type !== 'tool_result' || !b.is_error) continue;
        const record = await this.#options.approvals.get(sessionId, b.tool_use_id);
        if (record?.status === 'denied') denied.add(b.tool_use_id);
      }
    }
    return historyToUiMessages(messages, (id) => denied.has(id));
  }

  /** Cancels the session's turn if it runs here; false otherwise (decision 0156: cancel is local). */
  stop(sessionId: string): boolean {
    const live = this.#live.get(sessionId);
    live?.controller.abort();
    return live !== undefined;
  }

  #startTurn(text: string, options: ChatTurnOptions): Response {
    const { sessionId } = options;
    if (this.#live.has(sessionId)) {
      // the running turn (maybe waiting for an approval) stays reachable for its answer
      const busy = publicErrorText(new TurnInProgressError(sessionId));
      return uiStreamResponse(chunksOf([{ type: 'error', errorText: busy }]));
    }
    const live = new LiveTurn(this.#options.protocol);
    this.#live.set(sessionId, live);
    void live.done.then(() => {
      if (this.#live.get(sessionId) === live) this.#live.delete(sessionId);
    });
    const events = this.#options.sessions.send(sessionId, text, {
      ...options.send,
      signal: live.controller.signal,
    });
    live.run(events);
    const { chunks, cancel } = live.attach();
    return uiStreamResponse(chunks, cancel);
  }

  async #continueTurn(
    sessionId: string,
    replyId: string,
    answers: readonly { approvalId: string; approved: boolean; reason: string | null }[],
  ): Promise<Response> {
    const { approvals, store, pollMs } = this.#options;
    const answered: string[] = [];
    for (const a of answers) {
      const record = await approvals.answer(sessionId, a.approvalId, a);
      if (record) answered.push(a.approvalId);
    }
    if (answered.length === 0) {
      throw new ChatRequestError(
        'messages',
        'no answered approval is pending in this chat (already answered, expired, or unknown)',
      );
    }
    const live = this.#live.get(sessionId);
    if (live) {
      const { chunks, cancel } = live.attach();
      return uiStreamResponse(chunks, cancel);
    }
    // the turn runs in another process: its progress is read from the store until it ends
    const stop = new AbortController();
    const chunks = tailTurn({
      store,
      approvals,
      sessionId,
      replyId,
      answered,
      pollMs,
      signal: stop.signal,
    });
    return uiStreamResponse(chunks, () => stop.abort());
  }
}

/** A fixed list of chunks as a stream's source. */
async function* chunksOf(chunks: readonly UiChunk[]): AsyncGenerator<UiChunk, void> {
  yield* chunks;
}
