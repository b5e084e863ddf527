import type Anthropic from '@anthropic-ai/sdk';
import { isSealedMessage, type Message, type ToolIdMap } from '@yourtool/core';
import {
  deriveName,
  encodeForm,
  type MessageForm,
  mergeTurns,
  oneOffForm,
  type ToolNamer,
} from './message-forms.js';
import { ANTHROPIC } from './provider.js';
import { turnsPrefix } from './remembered-turns.js';
import type { AnthropicWireMemory } from './wire-memory.js';

export type { ToolNamer } from './message-forms.js';

/**
 * Turns prepared canonical messages into alternating user/assistant turns: TOOL messages become
 * user turns holding `tool_result` blocks; consecutive same-role turns merge, with tool results
 * first in a user turn and thinking first in an assistant turn. Tool use names go out as
 * `toolName` gives them (default: core's `wireToolName` under Anthropic's rule, so an
 * imported history's names are sent stably and read back as canonical). Tool ids are linked in
 * `toolIdMap` under `provider`, the provider key of the requested model (default `anthropic`;
 * Claude on Vertex AI is `vertex-anthropic`).
 */
export function encodeAnthropicMessages(
  messages: readonly Message[],
  toolIdMap: ToolIdMap,
  toolName: ToolNamer = deriveName,
  provider: string = ANTHROPIC,
): Anthropic.MessageParam[] {
  return mergeTurns(messages.map((message) => oneOffForm(message, toolIdMap, toolName, provider)));
}

/** Where {@link encodeRememberedMessages} links tool ids and what it remembers. */
export interface RememberedEncoding {
  /** The provider key tool ids are linked under in the map (the requested model's). */
  provider: string;
  /** The adapter's memory (decision 0165); without it every message is encoded afresh. */
  memory?: AnthropicWireMemory | undefined;
}

/**
 * {@link encodeAnthropicMessages} under Anthropic's tool name rule, with what the sealed
 * messages a history starts with make remembered in `memory` per `toolIdMap` (decision 0149):
 * their forms, and the turns they close with those turns' JSON (which the request body copies
 * in one piece). `toolName` is called for each renamed tool name, so its per-request WARN is
 * logged as when encoding afresh. The turns and their content arrays are read-only (they are
 * shared). Without `memory`, every message is encoded afresh.
 */
export function encodeRememberedMessages(
  messages: readonly Message[],
  toolIdMap: ToolIdMap,
  toolName: ToolNamer,
  { provider, memory }: RememberedEncoding,
): Anthropic.MessageParam[] {
  // a history that does not start sealed (a caller's own messages) has nothing remembered
  const first = messages[0];
  if (memory === undefined || first === undefined || !isSealedMessage(first)) {
    return encodeAnthropicMessages(messages, toolIdMap, toolName, provider);
  }
  const prefix = turnsPrefix(messages, toolIdMap, memory, provider);
  for (const name of prefix.renamed) toolName(name);
  // the forms after the closed turns: remembered ones, then each message's own
  const open: MessageForm[] = prefix.forms.slice(prefix.closedForms);
  // a form not kept goes out through the request's namer (its WARNs logged as it encodes)
  const encode = (message: Message, kept: boolean) =>
    kept
      ? encodeForm(message, toolIdMap, provider)
      : { form: oneOffForm(message, toolIdMap, toolName, provider), reusable: false };
  for (let i = prefix.forms.length; i < messages.length; i++) {
    const form = memory.forms.get(messages[i] as Message, toolIdMap, encode);
    for (const name of form.renamed) toolName(name);
    open.push(form);
  }
  const turns = prefix.closed.concat(mergeTurns(open));
  memory.markClosedTurns(turns, prefix.closed, prefix.json);
  return turns;
}
