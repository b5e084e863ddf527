import type {
  ContentBlock as ConverseBlock,
  Message as ConverseMessage,
} from '@aws-sdk/client-bedrock-runtime';
import type { Message } from '@yourtool/core';
import { type BlockEncoding, encodeMessageBlocks } from './content.js';

/** The text of the user turn put before a history that starts with the assistant. */
export const CONTINUATION_TEXT = '(The conversation continues.)';

type Role = 'user' | 'assistant';

/** Whether a block leads its turn: tool results in a user turn, reasoning in an assistant turn. */
function leads(role: Role, block: ConverseBlock): boolean {
  return role === 'user' ? block.toolResult !== undefined : block.reasoningContent !== undefined;
}

/** A merged turn's blocks with the leading kind first, each group in order. */
function ordered(role: Role, content: ConverseBlock[]): ConverseBlock[] {
  const first = content.filter((b) => leads(role, b));
  if (first.length === 0 || first.length === content.length) return content;
  return [...first, ...content.filter((b) => !leads(role, b))];
}

/** What {@link encodeConverseMessages} did besides the turns. */
export interface ConverseTurns {
  /** Alternating user/assistant turns, the first a user turn. */
  messages: ConverseMessage[];
  /** Whether a user turn was put first because the history started with the assistant. */
  insertedFirstTurn: boolean;
}

/**
 * Prepared canonical messages as alternating Converse turns: TOOL and USER messages go in user
 * turns, consecutive same-role messages share a turn (tool results first in a user turn,
 * reasoning first in an assistant turn), a message left with no block is skipped, and a user
 * turn goes first when the history starts with the assistant (Converse requires one).
 */
export function encodeConverseMessages(
  messages: readonly Message[],
  encoding: BlockEncoding,
): ConverseTurns {
  const turns: { role: Role; content: ConverseBlock[] }[] = [];
  for (const message of messages) {
    const content = encodeMessageBlocks(message, encoding);
    if (content.length === 0) continue;
    const role: Role = message.role === 'assistant' ? 'assistant' : 'user';
    const last = turns.at(-1);
    if (last?.role === role) last.content.push(...content);
    else turns.push({ role, content });
  }
  const out = turns.map((turn) => ({ role: turn.role, content: ordered(turn.role, turn.content) }));
  const insertedFirstTurn = out[0]?.role === 'assistant';
  if (insertedFirstTurn) out.unshift({ role: 'user', content: [{ text: CONTINUATION_TEXT }] });
  return { messages: out, insertedFirstTurn };
}

/** Whether any turn holds a tool use or a tool result (Converse then requires a `toolConfig`). */
export function historyHasToolBlocks(messages: readonly ConverseMessage[]): boolean {
  return messages.some((m) =>
    (m.content ?? []).some((b) => b.toolUse !== undefined || b.toolResult !== undefined),
  );
}

/** The tool names the history's tool uses go out under, in order of first use. */
export function historyToolNames(messages: readonly ConverseMessage[]): string[] {
  const names: string[] = [];
  for (const message of messages) {
    for (const block of message.content ?? []) {
      const name = block.toolUse?.name;
      if (name !== undefined && !names.includes(name)) names.push(name);
    }
  }
  return names;
}

/**
 * Puts a cache point at the end of up to `budget` of the last user turns, from the last one
 * back; a turn that ends with reasoning is passed over (Converse refuses a cache point right
 * after a reasoning block). Returns how many were placed.
 */
export function addMessageCachePoints(messages: ConverseMessage[], budget: number): number {
  let placed = 0;
  for (let i = messages.length - 1; i >= 0 && placed < budget; i--) {
    const turn = messages[i] as ConverseMessage;
    const content = turn.content ?? [];
    const lastBlock = content.at(-1);
    if (turn.role !== 'user' || lastBlock === undefined || lastBlock.reasoningContent) continue;
    messages[i] = { role: turn.role, content: [...content, { cachePoint: { type: 'default' } }] };
    placed++;
  }
  return placed;
}
