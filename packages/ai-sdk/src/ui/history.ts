import type { ContentBlock, Message } from '@yourtool/core';
import type { ChatMessageMetadata } from './chunks.js';
import { addDecimal } from './decimal.js';
import { replyIdFor } from './reply-ids.js';
import { toolResultOutput } from './tool-output.js';

/** A tool part of a stored reply, in the AI SDK's `dynamic-tool` UI part shape. */
export interface ChatToolPart {
  type: 'dynamic-tool';
  toolName: string;
  toolCallId: string;
  state: 'input-available' | 'output-available' | 'output-error' | 'output-denied';
  input: unknown;
  output?: unknown;
  errorText?: string;
  /** Present on a refused approval (`output-denied`), as the SDK's schema requires. */
  approval?: { id: string; approved: false };
}

/** A part of a {@link ChatUiMessage}. */
export type ChatUiPart =
  | { type: 'text'; text: string; state: 'done' }
  | { type: 'reasoning'; text: string; state: 'done' }
  | { type: 'step-start' }
  | ChatToolPart;

/** A stored history message as a `useChat` `UIMessage` (its `messages` for a reload). */
export interface ChatUiMessage {
  id: string;
  role: 'user' | 'assistant';
  parts: ChatUiPart[];
  metadata?: ChatMessageMetadata;
}

/** Decides whether a refused tool result was a refused approval (an output-denied part). */
export type DeniedCheck = (toolUseId: string) => boolean;

/**
 * A stored session as `useChat` messages (decision 0178): each user message keeps its stored
 * id; the rows of the turn answering it (assistant replies and tool results) form one
 * assistant message whose id is the user id with `.reply`, one step per stored reply. Rows
 * stored at `error` (a failed attempt a fallback replaced) and system rows are left out.
 */
export function historyToUiMessages(
  messages: readonly Message[],
  denied: DeniedCheck = () => false,
): ChatUiMessage[] {
  const out: ChatUiMessage[] = [];
  let reply: ChatUiMessage | null = null;
  for (const message of messages) {
    if (message.role === 'user' && message.content.some((b) => b.type === 'text')) {
      out.push({ id: message.id, role: 'user', parts: textParts(message.content) });
      reply = { id: replyIdFor(message.id), role: 'assistant', parts: [], metadata: emptyUsage() };
      out.push(reply);
      continue;
    }
    if (!reply) continue;
    if (message.role === 'assistant' && message.metadata.status !== 'error') {
      reply.parts.push({ type: 'step-start' }, ...replyParts(message.content));
      addUsage(reply.metadata as ChatMessageMetadata, message);
    } else if (message.role === 'tool' || message.role === 'user') {
      applyResults(reply, message.content, denied);
    }
  }
  return out.filter((m) => m.role === 'user' || m.parts.length > 0);
}

function textParts(content: readonly ContentBlock[]): ChatUiPart[] {
  return content.flatMap((b) =>
    b.type === 'text' ? [{ type: 'text' as const, text: b.text, state: 'done' as const }] : [],
  );
}

function replyParts(content: readonly ContentBlock[]): ChatUiPart[] {
  return content.flatMap((b): ChatUiPart[] => {
    if (b.type === 'text') return [{ type: 'text', text: b.text, state: 'done' }];
    if (b.type === 'thinking' && b.text)
      return [{ type: 'reasoning', text: b.text, state: 'done' }];
    if (b.type === 'tool_use') {
      return [
        {
          type: 'dynamic-tool',
          toolName: b.name,
          toolCallId: b.id,
          state: 'input-available',
          input: b.input,
        },
      ];
    }
    return [];
  });
}

function applyResults(reply: ChatUiMessage, content: readonly ContentBlock[], denied: DeniedCheck) {
  for (const block of content) {
    if (block.type !== 'tool_result') continue;
    const part = reply.parts.find(
      (p): p is ChatToolPart => p.type === 'dynamic-tool' && p.toolCallId === block.tool_use_id,
    );
    if (!part) continue;
    const text = toolResultOutput(block);
    if (denied(block.tool_use_id)) {
      Object.assign(part, {
        state: 'output-denied',
        approval: { id: block.tool_use_id, approved: false },
      });
    } else if (block.is_error) Object.assign(part, { state: 'output-error', errorText: text });
    else Object.assign(part, { state: 'output-available', output: text });
  }
}

function emptyUsage(): ChatMessageMetadata {
  return { input_tokens: 0, output_tokens: 0, turn_cost_usd: '0' };
}

function addUsage(metadata: ChatMessageMetadata, message: Message): void {
  const usage = message.metadata.usage;
  if (message.metadata.model) metadata.model = message.metadata.model;
  if (!usage) return;
  metadata.input_tokens = (metadata.input_tokens ?? 0) + usage.input_tokens;
  metadata.output_tokens = (metadata.output_tokens ?? 0) + usage.output_tokens;
  metadata.turn_cost_usd =
    usage.cost_usd === null || metadata.turn_cost_usd == null
      ? null
      : addDecimal(metadata.turn_cost_usd, usage.cost_usd);
}
