import { nowTimestamp } from './ids.js';
import { MemoryStoreError } from './memory-store-error.js';
import type { Message } from './schemas/message.js';
import type { AppendMessageOptions, ToolCallRecord, ToolCallStatus } from './session-store.js';
import { ToolIdMap } from './tool-id-map.js';

const MESSAGE_STATUS_TO_CALL: Record<string, ToolCallStatus> = {
  complete: 'pending',
  partial: 'pending',
  cancelled: 'cancelled',
  error: 'failed',
};

/** The status a tool call row starts with, from its assistant message's status. */
function callStatusOf(message: Message): ToolCallStatus {
  return MESSAGE_STATUS_TO_CALL[message.metadata.status] ?? 'pending';
}

/**
 * The tool call rows of `MemorySessionStore`, by tool use id: made for an assistant message's
 * tool uses (with the provider ids of the write's `ToolIdMap`), answered by a tool message's
 * results, cancelled with a turn that lost its lease. Rows are copied on the way out.
 */
export class MemoryToolCalls {
  readonly #calls = new Map<string, ToolCallRecord>();

  /**
   * The rows an assistant message's tool uses make (none for other roles); nothing is stored.
   * @throws MemoryStoreError (`duplicate_tool_call`) for a tool use id twice in the message.
   */
  rowsOf(message: Message, options: AppendMessageOptions): ToolCallRecord[] {
    if (message.role !== 'assistant') return [];
    const provider = message.metadata.provider ?? null;
    const status = callStatusOf(message);
    const seen = new Set<string>();
    const out: ToolCallRecord[] = [];
    for (const block of message.content) {
      if (block.type !== 'tool_use') continue;
      if (seen.has(block.id)) {
        throw new MemoryStoreError(
          'duplicate_tool_call',
          `tool use ${block.id} appears twice in message ${message.id}`,
        );
      }
      seen.add(block.id);
      out.push({
        id: block.id,
        session_id: message.session_id,
        message_id: message.id,
        result_message_id: null,
        name: block.name,
        status,
        provider_id:
          provider === null ? null : (options.toolIdMap?.getProviderId(provider, block.id) ?? null),
        provider,
        created_at: message.created_at,
        completed_at: status === 'pending' ? null : message.created_at,
      });
    }
    return out;
  }

  /**
   * Refuses rows whose tool use id is already stored, naming message `messageId`.
   * @throws MemoryStoreError (`duplicate_tool_call`).
   */
  assertNew(rows: readonly ToolCallRecord[], messageId: string): void {
    for (const call of rows) {
      if (this.#calls.has(call.id)) {
        throw new MemoryStoreError(
          'duplicate_tool_call',
          `tool use ${call.id} in message ${messageId} is already stored`,
        );
      }
    }
  }

  /** Stores the rows of an appended message. */
  add(rows: readonly ToolCallRecord[]): void {
    for (const call of rows) this.#calls.set(call.id, call);
  }

  /**
   * The rows of an updated assistant message: a new tool use gets its row; a pending,
   * unanswered row takes the message's new status and any provider id it lacked.
   */
  update(rows: readonly ToolCallRecord[], message: Message): void {
    const status = callStatusOf(message);
    for (const call of rows) {
      const known = this.#calls.get(call.id);
      if (!known) this.#calls.set(call.id, call);
      else if (known.status === 'pending' && known.result_message_id === null) {
        this.#calls.set(call.id, {
          ...known,
          status,
          provider_id: known.provider_id ?? call.provider_id,
          provider: known.provider ?? call.provider,
          completed_at: status === 'pending' ? null : nowTimestamp(),
        });
      }
    }
  }

  /** Marks the calls a tool message answers (of its own session). */
  answer(message: Message): void {
    if (message.role !== 'tool') return;
    for (const block of message.content) {
      if (block.type !== 'tool_result') continue;
      const call = this.#calls.get(block.tool_use_id);
      if (!call || call.session_id !== message.session_id) continue;
      this.#calls.set(call.id, {
        ...call,
        result_message_id: message.id,
        status: block.is_error ? 'failed' : 'succeeded',
        completed_at: nowTimestamp(),
      });
    }
  }

  /** Cancels the pending calls of message `messageId` (its turn lost its lease). */
  cancelPending(messageId: string): void {
    for (const call of this.#calls.values()) {
      if (call.message_id === messageId && call.status === 'pending') {
        this.#calls.set(call.id, { ...call, status: 'cancelled', completed_at: nowTimestamp() });
      }
    }
  }

  /** Calls of a session with no answer yet, in creation order. */
  unanswered(sessionId: string): ToolCallRecord[] {
    return [...this.#calls.values()]
      .filter((c) => c.session_id === sessionId && c.result_message_id === null)
      .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id))
      .map((c) => ({ ...c }));
  }

  /** How many calls of a session failed. */
  countFailed(sessionId: string): number {
    let n = 0;
    for (const c of this.#calls.values())
      if (c.session_id === sessionId && c.status === 'failed') n++;
    return n;
  }

  /** The session's tool id map, from the provider ids recorded on its calls. */
  toolIdMap(sessionId: string): ToolIdMap {
    const map = new ToolIdMap();
    for (const c of this.#calls.values()) {
      if (c.session_id !== sessionId || c.provider_id === null || c.provider === null) continue;
      map.set({ canonical_id: c.id, provider: c.provider, provider_id: c.provider_id });
    }
    return map;
  }
}
