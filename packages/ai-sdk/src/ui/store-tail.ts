import type { Message, SessionStore } from '@yourtool/core';
import type { ApprovalStore } from './approval-store.js';
import type { UiChunk } from './chunks.js';
import { storedReplyChunks, storedResultChunks } from './stored-chunks.js';

/** What {@link tailTurn} reads and how long it waits. */
export interface TailOptions {
  store: SessionStore;
  approvals: ApprovalStore;
  sessionId: string;
  /** UI id of the reply being continued. */
  replyId: string;
  /** The tool use ids just answered: the tail starts at the reply that asked them. */
  answered: readonly string[];
  pollMs: number;
  /** Stops waiting (the client went away). */
  signal: AbortSignal;
}

/**
 * The rest of a turn that runs in another process, read from the store (decision 0177): every
 * reply and tool result stored after the reply that asked the answered approvals, one whole
 * step per reply, until the turn's lease is released (the turn ended) or it asks another
 * approval. Text arrives a reply at a time, not token by token.
 */
export async function* tailTurn(options: TailOptions): AsyncGenerator<UiChunk, void> {
  const { store, approvals, sessionId, pollMs, signal } = options;
  yield { type: 'start', messageId: options.replyId };
  const shown = new Set<string>();
  const denied = new Set<string>();
  let start: number | null = null;
  while (!signal.aborted) {
    const session = await store.getSession(sessionId);
    const ended = !session?.turn_lease || session.turn_lease.expires_in_ms <= 0;
    const { messages } = await store.loadMessages(sessionId);
    start ??= askingIndex(messages, options.answered);
    if (start === null) {
      yield { type: 'error', errorText: 'The approved tool use is not in this chat.' };
      return;
    }
    for (const message of messages.slice(start + 1)) {
      if (message.role === 'user' && message.content.some((b) => b.type === 'text')) break;
      if (shown.has(message.id) || message.metadata.status === 'partial') continue;
      shown.add(message.id);
      if (message.role === 'assistant' && message.metadata.status !== 'error') {
        yield* storedReplyChunks(message, shown.size);
      } else if (message.role !== 'assistant') {
        for (const id of resultIds(message)) {
          if ((await approvals.get(sessionId, id))?.status === 'denied') denied.add(id);
        }
        yield* storedResultChunks(message, denied);
      }
    }
    // only questions of this turn: a pending row of a turn that died long ago is not asked again
    const uses = toolUseIds(messages.slice(start));
    const asked = (await approvals.pending(sessionId)).filter(
      (r) => uses.has(r.tool_use_id) && !options.answered.includes(r.tool_use_id),
    );
    if (asked.length > 0 || ended) {
      for (const r of asked)
        yield {
          type: 'tool-approval-request',
          approvalId: r.tool_use_id,
          toolCallId: r.tool_use_id,
        };
      yield { type: 'finish', finishReason: asked.length > 0 ? 'tool-calls' : 'stop' };
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

/** Index of the stored reply holding one of the tool uses, or null. */
function askingIndex(messages: readonly Message[], ids: readonly string[]): number | null {
  const at = messages.findLastIndex((m) =>
    m.content.some((b) => b.type === 'tool_use' && ids.includes(b.id)),
  );
  return at < 0 ? null : at;
}

function resultIds(message: Message): string[] {
  return message.content.flatMap((b) => (b.type === 'tool_result' ? [b.tool_use_id] : []));
}

/** The tool use ids of these messages. */
function toolUseIds(messages: readonly Message[]): Set<string> {
  return new Set(
    messages.flatMap((m) => m.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : []))),
  );
}
