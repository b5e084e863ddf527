import type { Message, ToolIdMap } from '@yourtool/core';
import { appendListMember, rememberedTurnJson } from './byte-run.js';
import { encodeForm, mergeTurns } from './message-forms.js';
import type { AnthropicWireMemory, TurnsPrefix } from './wire-memory.js';

/** Takes one more sealed message into `state` (see {@link TurnsPrefix}). */
function fold(
  state: TurnsPrefix,
  message: Message,
  toolIdMap: ToolIdMap,
  { memory, provider }: { memory: AnthropicWireMemory; provider: string },
): void {
  if (state.stopped) return;
  const encode = (m: Message) => encodeForm(m, toolIdMap, provider);
  const form = memory.forms.get(message, toolIdMap, encode);
  if (!memory.forms.has(message, toolIdMap)) {
    state.stopped = true;
    return;
  }
  const before = state.forms.at(-1);
  if (before !== undefined && before.role !== form.role) {
    // the forms since the last closed turn are one turn, which this message closes
    const [turn] = mergeTurns(state.forms.slice(state.closedForms));
    if (turn) {
      state.closed.push(turn);
      appendListMember(state.json, rememberedTurnJson(turn));
    }
    state.closedForms = state.forms.length;
  }
  state.forms.push(form);
  for (const name of form.renamed) if (!state.renamed.includes(name)) state.renamed.push(name);
}

/**
 * The remembered turns of `messages`' sealed prefix under `toolIdMap`, kept in `memory`, tool
 * ids linked under `provider` (one memory serves one adapter, so one provider key).
 */
export function turnsPrefix(
  messages: readonly Message[],
  toolIdMap: ToolIdMap,
  memory: AnthropicWireMemory,
  provider: string,
): TurnsPrefix {
  return memory.prefixes.run(
    messages,
    (state, message) => fold(state, message, toolIdMap, { memory, provider }),
    memory.mapKey(toolIdMap),
  ).state;
}
