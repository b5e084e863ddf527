import type Anthropic from '@anthropic-ai/sdk';
import {
  ANTHROPIC_TOOL_ID_RULES,
  type ContentBlock,
  type ImageBlock,
  type Message,
  type ToolIdMap,
  type ToolResultBlock,
} from '@yourtool/core';
import { type EncodedWireForm, wireToolName } from '@yourtool/core/adapter';
import { ANTHROPIC } from './provider.js';
import { ANTHROPIC_TOOL_NAME_RULES } from './tool-names.js';

export type WireBlock = Anthropic.ContentBlockParam;
export type TurnRole = 'user' | 'assistant';

/** The wire name of a canonical tool name (see {@link anthropicToolNamer}). */
export type ToolNamer = (name: string) => string;

export const deriveName: ToolNamer = (name) => wireToolName(name, ANTHROPIC_TOOL_NAME_RULES);

function encodeImage(image: ImageBlock): Anthropic.ImageBlockParam {
  if (image.source.kind === 'url')
    return { type: 'image', source: { type: 'url', url: image.source.data } };
  return {
    type: 'image',
    source: {
      type: 'base64',
      media_type: image.media_type as Anthropic.Base64ImageSource['media_type'],
      data: image.source.data,
    },
  };
}

function encodeToolResult(
  block: ToolResultBlock,
  toolIdMap: ToolIdMap,
  provider: string,
): Anthropic.ToolResultBlockParam {
  const content = block.content.map(
    (inner): Anthropic.TextBlockParam | Anthropic.ImageBlockParam =>
      inner.type === 'text' ? { type: 'text', text: inner.text } : encodeImage(inner),
  );
  return {
    type: 'tool_result',
    tool_use_id: toolIdMap.toProviderId(provider, block.tool_use_id, ANTHROPIC_TOOL_ID_RULES),
    ...(content.length > 0 ? { content } : {}),
    ...(block.is_error ? { is_error: true } : {}),
  };
}

function encodeBlock(
  block: ContentBlock,
  toolIdMap: ToolIdMap,
  toolName: ToolNamer,
  provider: string,
): WireBlock {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'image':
      return encodeImage(block);
    case 'tool_use':
      return {
        type: 'tool_use',
        id: toolIdMap.toProviderId(provider, block.id, ANTHROPIC_TOOL_ID_RULES),
        name: toolName(block.name),
        input: block.input,
      };
    case 'tool_result':
      return encodeToolResult(block, toolIdMap, provider);
    case 'thinking':
      return { type: 'thinking', thinking: block.text, signature: block.signature ?? '' };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: block.data };
  }
}

const isThinking = (b: WireBlock) => b.type === 'thinking' || b.type === 'redacted_thinking';

/** Whether `role`'s turn holds `blocks` out of order: a tool result (user) or thinking (assistant) after another block. */
function misplaced(role: TurnRole, blocks: readonly WireBlock[]): boolean {
  let other = false;
  for (const block of blocks) {
    const leads =
      role === 'user'
        ? block.type === 'tool_result'
        : block.type === 'thinking' || block.type === 'redacted_thinking';
    if (!leads) other = true;
    else if (other) return true;
  }
  return false;
}

/** A turn's blocks with tool results (user) or thinking (assistant) first, in order. */
function reordered(role: TurnRole, content: readonly WireBlock[]): WireBlock[] {
  const first = role === 'user' ? (b: WireBlock) => b.type === 'tool_result' : isThinking;
  return [...content.filter(first), ...content.filter((b) => !first(b))];
}

/** One message's wire blocks, with the turn role they go under. */
export interface MessageForm {
  role: TurnRole;
  blocks: readonly WireBlock[];
  /** The message as a turn of its own (never changed: a merge or a reorder makes a new turn). */
  turn: Anthropic.MessageParam;
  /** Canonical tool names its tool uses go out renamed under (each a WARN per request). */
  renamed: readonly string[];
  /** Whether its blocks need reordering as a turn of their own (see {@link misplaced}). */
  misplaced: boolean;
}

/** Whether every tool id the blocks went out with is the link the map records (so stays). */
function idsRecorded(
  message: Message,
  blocks: readonly WireBlock[],
  toolIdMap: ToolIdMap,
  provider: string,
) {
  return message.content.every((block, index) => {
    const wire = blocks[index];
    if (block.type === 'tool_use' && wire?.type === 'tool_use')
      return toolIdMap.getProviderId(provider, block.id) === wire.id;
    if (block.type === 'tool_result' && wire?.type === 'tool_result')
      return toolIdMap.getProviderId(provider, block.tool_use_id) === wire.tool_use_id;
    return true;
  });
}

/** No renamed tool names: a form whose names went out through the request's own namer. */
const NONE_RENAMED: readonly string[] = Object.freeze([]);

/**
 * A form encoded for this request only, its tool names through the request's namer, its tool
 * ids linked under `provider` (the provider key of the requested model) in the map.
 */
export function oneOffForm(
  message: Message,
  toolIdMap: ToolIdMap,
  toolName: ToolNamer,
  provider: string = ANTHROPIC,
): MessageForm {
  const blocks = message.content.map((block) => encodeBlock(block, toolIdMap, toolName, provider));
  const role: TurnRole = message.role === 'assistant' ? 'assistant' : 'user';
  const turn = { role, content: blocks };
  return { role, blocks, turn, renamed: NONE_RENAMED, misplaced: misplaced(role, blocks) };
}

/**
 * A form to keep: its tool names derived, the renamed ones recorded for each request's WARN,
 * its tool ids linked under `provider` in the map.
 */
export function encodeForm(
  message: Message,
  toolIdMap: ToolIdMap,
  provider: string = ANTHROPIC,
): EncodedWireForm<MessageForm> {
  const renamed: string[] = [];
  const toolName: ToolNamer = (name) => {
    const wire = deriveName(name);
    if (wire !== name && !renamed.includes(name)) renamed.push(name);
    return wire;
  };
  const blocks = message.content.map((block) => encodeBlock(block, toolIdMap, toolName, provider));
  const role: TurnRole = message.role === 'assistant' ? 'assistant' : 'user';
  const turn: Anthropic.MessageParam = { role, content: blocks };
  const reusable = idsRecorded(message, blocks, toolIdMap, provider);
  if (reusable) {
    // frozen: a kept form is shared by every request that carries the message
    for (const block of blocks) Object.freeze(block);
    Object.freeze(blocks);
    Object.freeze(turn);
  }
  return { form: { role, blocks, turn, renamed, misplaced: misplaced(role, blocks) }, reusable };
}

/**
 * Merges per-message blocks into alternating user/assistant turns: consecutive same-role
 * messages share a turn, with tool results first in a user turn and thinking first in an
 * assistant turn. A turn of one message holds that message's (read-only) blocks array.
 */
export function mergeTurns(forms: readonly MessageForm[]): Anthropic.MessageParam[] {
  const turns: Anthropic.MessageParam[] = [];
  // where the turns to put in order are: merged ones, and one-message turns out of order
  const unordered: number[] = [];
  // the last turn's content, when it is a copy of its own (made at a merge) to append to
  let merged: WireBlock[] | null = null;
  let last: MessageForm | undefined;
  for (const form of forms) {
    if (last !== undefined && last.role === form.role) {
      if (merged === null) {
        merged = [...last.blocks];
        turns[turns.length - 1] = { role: form.role, content: merged };
        if (unordered.at(-1) !== turns.length - 1) unordered.push(turns.length - 1);
      }
      merged.push(...form.blocks);
    } else {
      turns.push(form.turn);
      merged = null;
      if (form.misplaced) unordered.push(turns.length - 1);
    }
    last = form;
  }
  for (const at of unordered) {
    const turn = turns[at] as Anthropic.MessageParam;
    const role = turn.role as TurnRole;
    const content = turn.content as WireBlock[];
    if (misplaced(role, content)) turns[at] = { role, content: reordered(role, content) };
  }
  return turns;
}
