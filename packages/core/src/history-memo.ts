import { emptyTaken, HistoryPass, type Taken } from './history-pass.js';
import type { Logger } from './logger.js';
import type { RedactedThinkingBlock, ThinkingBlock } from './schemas/content.js';
import type { Message } from './schemas/message.js';
import { SealedPrefixMemo } from './sealed-prefix.js';

// `prepareHistory` over the sealed messages a history starts with, done once per history and
// target (decision 0148): pass 1 is remembered message by message, and pass 2 (the pairing of
// tool uses with their results) for as long as the remembered part pairs on its own.

/** A thinking block's keep-or-drop decision, as pass 1 made it. */
interface ThinkingDecision {
  block: ThinkingBlock | RedactedThinkingBlock;
  message: Message;
  kept: boolean;
}

/**
 * Pass 2 over the first `conversation` messages and `results` results of a remembered pass 1,
 * kept while it made no repair: every tool use there answered there, once, in place. Pairing
 * more after it then leaves its output as it is, as long as what comes after neither answers
 * its tool uses nor reuses their ids (checked each time).
 */
interface Pairing {
  conversation: number;
  results: number;
  out: Message[];
  /** The tool use ids of the paired conversation (each answered by one of its results). */
  toolUseIds: Set<string>;
}

/** Pass 1 over the sealed messages a history starts with, for one target and its options. */
interface RememberedTake {
  taken: Taken;
  /** The WARNs pass 1 logged over those messages: each request logs them again. */
  logs: Array<[Record<string, unknown>, string | undefined]>;
  /** Each thinking block's decision: a request whose filter decides one otherwise folds anew. */
  thinking: ThinkingDecision[];
  pairing: Pairing;
}

function emptyTake(): RememberedTake {
  return {
    taken: emptyTaken(),
    logs: [],
    thinking: [],
    pairing: { conversation: 0, results: 0, out: [], toolUseIds: new Set() },
  };
}

/** A memo's remembered passes (set once, by {@link HistoryMemo}: its field stays private). */
let takesOf: (memo: HistoryMemo) => SealedPrefixMemo<RememberedTake>;

/**
 * What `prepareHistory` remembers over the sealed messages a history starts with (decision
 * 0148): both passes over them, per target, so a session's next request takes and pairs only
 * what is new. Pass one as `prepareHistory`'s fourth argument; without one, both passes run
 * over every message (to the same result).
 *
 * Owner and lifetime (decision 0165): whoever encodes a session's requests holds one (an
 * adapter makes one and hands it to its codec) and it lives as long as that owner. Bound: per
 * history (held weakly by its first message: a dropped history takes its entry with it) the
 * passes of at most four targets (adapter, model, capabilities, `keepFileRefImages`), each
 * holding references to the history's sealed messages and their WARNs.
 */
export class HistoryMemo {
  readonly #takes = new SealedPrefixMemo<RememberedTake>(emptyTake);

  static {
    takesOf = (memo) => memo.#takes;
  }
}

/**
 * Everything pass 1 depends on besides the message, but the thinking filter (a function,
 * checked decision by decision instead): the target and whether `file_ref` images are kept.
 */
function keyOf(pass: HistoryPass): string {
  const { target, options } = pass;
  return `${target.adapter}\n${target.model}\n${JSON.stringify(target.capabilities)}\n${options.keepFileRefImages === true}`;
}

/** A pass that takes messages into `into`, recording its WARNs and thinking decisions there. */
function recordingPass(pass: HistoryPass, into: RememberedTake): HistoryPass {
  const recorder: Logger = { warn: (obj, msg) => into.logs.push([obj, msg]) };
  return new HistoryPass(
    pass.target,
    { ...pass.options, logger: recorder },
    into.taken,
    (block, message) => {
      const kept = pass.keepThinking(block, message);
      into.thinking.push({ block, message, kept });
      return kept;
    },
  );
}

/** What pass 1 took after the first `conversation` messages and `results` results of `taken`. */
function takenAfter(taken: Taken, conversation: number, results: number): Taken {
  const part = emptyTaken();
  part.conversation = taken.conversation.slice(conversation);
  part.conversationOrigin = taken.conversationOrigin.slice(conversation);
  part.results = taken.results.slice(results);
  for (const message of part.conversation) {
    if (message.role !== 'assistant') continue;
    for (const block of message.content)
      if (block.type === 'tool_use') part.toolUseIds.push(block.id);
  }
  return part;
}

/** Whether pairing `part` after `pairing` leaves the paired output as it is (see {@link Pairing}). */
function pairsApart(pairing: Pairing, part: Taken): boolean {
  for (const found of part.results)
    if (pairing.toolUseIds.has(found.block.tool_use_id)) return false;
  for (const id of part.toolUseIds) if (pairing.toolUseIds.has(id)) return false;
  return true;
}

/** Pass 2 over `part` alone, with `pass`'s target and logger; its repairs go to `part`. */
function pairPart(pass: HistoryPass, part: Taken, logger: Logger = pass.logger): Message[] {
  const pairing = new HistoryPass(pass.target, { ...pass.options, logger }, part);
  return pairing.paired(pairing.resultsById());
}

/**
 * Pairs the remembered pass 1 further, over what it took since it was last paired, when that
 * part pairs on its own without a repair; otherwise the pairing stays where it was.
 */
function extendPairing(pass: HistoryPass, state: RememberedTake): void {
  const { pairing, taken } = state;
  if (
    pairing.conversation === taken.conversation.length &&
    pairing.results === taken.results.length
  )
    return;
  const part = takenAfter(taken, pairing.conversation, pairing.results);
  if (!pairsApart(pairing, part)) return;
  const silent: Logger = { warn: () => undefined };
  const out = pairPart(pass, part, silent);
  if (part.repairs.length > 0) return;
  for (const message of out) pairing.out.push(message);
  for (const id of part.toolUseIds) pairing.toolUseIds.add(id);
  pairing.conversation = taken.conversation.length;
  pairing.results = taken.results.length;
}

/** The remembered pass 1 of `messages`' sealed prefix, or null when it cannot serve `pass`. */
function rememberedTake(
  pass: HistoryPass,
  messages: readonly Message[],
  memo: HistoryMemo,
): { state: RememberedTake; end: number } | null {
  let recording: HistoryPass | null = null;
  const step = (state: RememberedTake, message: Message, origin: number) => {
    recording ??= recordingPass(pass, state);
    recording.take(message, origin);
  };
  let prefix: { state: RememberedTake; end: number };
  try {
    prefix = takesOf(memo).run(messages, step, keyOf(pass));
  } catch {
    // (a critical message's dropped block): the whole pass throws it, after the WARNs before it
    return null;
  }
  for (const decision of prefix.state.thinking) {
    if (pass.keepThinking(decision.block, decision.message) !== decision.kept) return null;
  }
  return prefix;
}

/**
 * Runs both passes of `pass` over `messages` with what the sealed messages they start with
 * give taken as remembered in `memo`: their WARNs are logged again for this request and only
 * the rest is taken and paired anew. Returns the paired conversation, with `pass.taken` holding the
 * system parts, drops and repairs of the whole; or null, having taken nothing, when the
 * remembered part cannot serve this request (a thinking block its filter decides otherwise, a
 * message that makes pass 1 throw): the caller runs both passes over every message then.
 */
export function prepareRemembered(
  pass: HistoryPass,
  messages: readonly Message[],
  memo: HistoryMemo,
): Message[] | null {
  const prefix = rememberedTake(pass, messages, memo);
  if (!prefix) return null;
  const { state, end } = prefix;
  for (const [obj, msg] of state.logs) pass.logger.warn({ ...obj }, msg);
  extendPairing(pass, state);
  const { taken, pairing } = state;
  // what this request adds after the remembered messages, taken into a part of its own
  const tail = emptyTaken();
  pass.taken = tail;
  for (let origin = end; origin < messages.length; origin++) {
    pass.take(messages[origin] as Message, origin);
  }
  const whole: Taken = {
    ...emptyTaken(),
    systemParts: taken.systemParts.concat(tail.systemParts),
    dropped: taken.dropped.concat(tail.dropped),
    repairs: taken.repairs.concat(tail.repairs),
  };
  pass.taken = whole;
  const part = takenAfter(taken, pairing.conversation, pairing.results);
  appendTaken(part, tail);
  if (!pairsApart(pairing, part)) {
    // what this request adds pairs with the remembered part: the whole is paired again
    appendTaken(whole, taken);
    appendTaken(whole, tail);
    return pass.paired(pass.resultsById());
  }
  const out = pairing.out.concat(pairPart(pass, part));
  for (const repair of part.repairs) whole.repairs.push(repair);
  return out;
}

/** Adds `more`'s conversation, tool uses and results to `taken` (a loop: they may be long). */
function appendTaken(taken: Taken, more: Taken): void {
  for (let i = 0; i < more.conversation.length; i++) {
    taken.conversation.push(more.conversation[i] as Message);
    taken.conversationOrigin.push(more.conversationOrigin[i] as number);
  }
  for (const id of more.toolUseIds) taken.toolUseIds.push(id);
  for (const result of more.results) taken.results.push(result);
}
