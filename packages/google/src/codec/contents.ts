import type { Content, Part } from '@google/genai';
import {
  type Message,
  type RunTail,
  runToolUseName,
  silentLogger,
  type ToolIdRules,
  type ToolResultBlock,
  type WrittenList,
} from '@yourtool/core';
import {
  freezeWireForm as deepFreeze,
  type EncodedWireForm,
  toolIdsRecorded,
  wireToolName,
} from '@yourtool/core/adapter';
import { modelTurnParts } from './model-turn.js';
import { GOOGLE } from './signatures.js';
import { GOOGLE_TOOL_NAME_RULES } from './tool-names.js';
import { type EncodedToolResult, encodeImage, encodeToolResult } from './tool-results.js';
import type { CallNames, GeminiContentsContext, TurnEncoder } from './turn-encoder.js';
import { TurnWriter } from './turn-writer.js';
import { concatBytes, geminiPartsJson, utf8 } from './wire-json.js';
import type { GeminiMessageForm, GeminiWireMemory } from './wire-memory.js';

/**
 * Rules for the function call ids the adapter sends. Gemini's ids are optional; the adapter
 * always sends one (the canonical id, which conforms) so results match their calls exactly.
 */
export const GOOGLE_TOOL_ID_RULES: ToolIdRules = { pattern: /^[a-zA-Z0-9_-]+$/, maxLength: 64 };

export type { GeminiContentsContext } from './turn-encoder.js';

/** The contents of a request, and their JSON as the SDK writes it when it was asked for. */
export interface EncodedGeminiContents {
  contents: Content[];
  /** The JSON of `contents` (the Gemini API's form) as UTF-8, or null when not asked for. */
  json: Uint8Array | null;
}

/**
 * Turns prepared canonical messages into Gemini contents: USER → `user`, ASSISTANT → `model`,
 * each TOOL result → a `functionResponse` part (`response.output`, or `response.error` when
 * `is_error`) in a `user` turn. The results of one assistant turn come first in their turn, one
 * function response per call; a result's images go nested in its function response where the
 * target takes that (`multimodalFunctionResponses`, Gemini 3: PNG, JPEG, WebP), else after all
 * the function responses of the turn, each result's after a text part naming its call
 * (decision 0151). Consecutive same-role turns merge. Thought signatures go back on the parts
 * they arrived on, to the model that produced them only (another model cannot verify them).
 * Tool names go out as `context.toolName` gives them (derived, Gemini-safe names for those it
 * refuses).
 */
export function encodeGeminiContents(
  messages: readonly Message[],
  context: GeminiContentsContext,
): Content[] {
  return encodeGeminiContentsJson(messages, context).contents;
}

/**
 * {@link encodeGeminiContents}, and with `context.wireMemory` the contents' JSON too, written
 * from each message's remembered form (decision 0194): a sealed message's parts and their JSON
 * are made once per target and `ToolIdMap`, unless encoding it logged a WARN or derived a tool
 * id the map does not record.
 */
export function encodeGeminiContentsJson(
  messages: readonly Message[],
  context: GeminiContentsContext,
): EncodedGeminiContents {
  const memory = context.wireMemory;
  const target = memory?.context(context.toolIdMap, targetKey(context));
  const originals = new Map<string, Message>();
  for (const m of context.originalMessages ?? []) originals.set(m.id, m);
  // whether a message's form may come from (and go into) the memory
  const memorable = (message: Message): boolean => {
    const original = originals.get(message.id);
    return target !== undefined && (original === undefined || original === message);
  };
  const tail =
    memory === undefined || target === undefined ? null : resumeRun(messages, memory, target);
  const local = new Map<string, string>();
  const from = tail?.from ?? 0;
  const encoder: TurnEncoder = {
    logger: context.logger ?? silentLogger,
    context,
    wireId: (canonicalId) =>
      context.functionCallIds === false
        ? {}
        : { id: context.toolIdMap.toProviderId(GOOGLE, canonicalId, GOOGLE_TOOL_ID_RULES) },
    toolName: context.toolName ?? ((name) => wireToolName(name, GOOGLE_TOOL_NAME_RULES)),
    // a call made by this request's messages comes after (so wins over) the run's
    callNames: {
      get: (id) => local.get(id) ?? runToolUseName(messages, from, id),
      set: (id, name) => local.set(id, name),
    },
    calls: [],
    answers: [],
    warned: 0,
  };
  const withJson = tail !== null;
  const remembered = (message: Message, kept: boolean) =>
    encodeMemorable(message, originals.get(message.id), encoder, kept);
  const turns = new TurnWriter(tail);
  for (let i = from; i < messages.length; i++) {
    const message = messages[i] as Message;
    if (message.role !== 'tool') turns.flushTrailing();
    const original = originals.get(message.id);
    const fromMemory = memory !== undefined && target !== undefined && memorable(message);
    let form = fromMemory
      ? memory.forms.get(message, target, remembered)
      : encodeForm(message, original, encoder, withJson);
    let kept = fromMemory && memory.forms.has(message, target);
    if (form.answers.length > 0 && !answersHold(form, encoder.callNames)) {
      form = encodeForm(message, original, encoder, withJson);
      kept = false;
    }
    for (let c = 0; c < form.calls.length; c++) {
      const [id, name] = form.calls[c] as readonly [string, string];
      encoder.callNames.set(id, name);
    }
    turns.add(form, kept, i);
  }
  const written = turns.finish();
  return { contents: turns.contents, json: written === null ? null : contentsBytes(written) };
}

/**
 * The request's run: resumed where the first message after the remembered turns opens a turn
 * of its own (of the other role than the last remembered turn); a message of a forked history
 * that would join that turn resumes from an earlier cut instead.
 */
function resumeRun(
  messages: readonly Message[],
  memory: GeminiWireMemory,
  target: object,
): RunTail<Content> {
  let tail = memory.runs.resume(messages, target, null);
  while (tail.from > 0) {
    const next = messages[tail.from];
    const last = tail.out.at(-1);
    if (next === undefined || last === undefined) break;
    const role = turnRole(next);
    if (role !== null && role !== last.role) break;
    tail = memory.runs.resume(messages, target, null, tail.from - 1);
  }
  return tail;
}

/**
 * The role of the turn a prepared message certainly adds parts to, from its blocks alone (each
 * of these blocks becomes a part); null when that is not certain.
 */
function turnRole(message: Message): 'user' | 'model' | null {
  const has = (types: readonly string[]) => message.content.some((b) => types.includes(b.type));
  switch (message.role) {
    case 'user':
      return has(['text', 'image']) ? 'user' : null;
    case 'tool':
      return has(['tool_result']) ? 'user' : null;
    case 'assistant':
      return has(['text', 'tool_use']) ? 'model' : null;
    default:
      return null;
  }
}

const OPEN = utf8('[');
const CLOSE = utf8(']');
const COMMA = utf8(',');

/** The contents' JSON as UTF-8: the remembered turns' bytes copied once, the rest encoded. */
function contentsBytes({ prefix, rest }: WrittenList): Uint8Array {
  if (rest === '') return concatBytes([OPEN, prefix, CLOSE]);
  if (prefix.length === 0) return utf8(`[${rest}]`);
  return concatBytes([OPEN, prefix, COMMA, utf8(rest), CLOSE]);
}

/** What, besides the message and the map, a message's form depends on. */
function targetKey(context: GeminiContentsContext): string {
  return JSON.stringify([
    context.targetModel ?? null,
    context.requiresFunctionCallSignatures === true,
    context.multimodalFunctionResponses === true,
    context.functionCallIds !== false,
  ]);
}

/** Whether each call a form's results answer still has the name the form was made with. */
function answersHold(form: GeminiMessageForm, callNames: CallNames): boolean {
  for (const [id, name] of form.answers) {
    if ((callNames.get(id) ?? UNKNOWN_TOOL) !== name) return false;
  }
  return true;
}

/**
 * A message's form, to be kept when `kept` and it comes out the same on every request under the
 * same target and map: not when encoding it logged a WARN (a tool renamed, a signature dropped
 * or substituted: each a WARN per request) or sent a tool id the map does not record.
 */
function encodeMemorable(
  message: Message,
  original: Message | undefined,
  encoder: TurnEncoder,
  kept: boolean,
): EncodedWireForm<GeminiMessageForm> {
  if (!kept) return { form: encodeForm(message, original, encoder, true), reusable: false };
  let renamed = false;
  const namer = encoder.toolName;
  const warnedBefore = encoder.warned;
  encoder.toolName = (name) => {
    const wire = namer(name);
    if (wire !== name) renamed = true;
    return wire;
  };
  try {
    const form = encodeForm(message, original, encoder, true);
    const reusable =
      !renamed && encoder.warned === warnedBefore && idsRecorded(message, encoder.context);
    if (reusable) deepFreeze(form);
    return { form, reusable };
  } finally {
    encoder.toolName = namer;
  }
}

/** One message's form, encoded now; its parts' JSON written when `withJson`. */
function encodeForm(
  message: Message,
  original: Message | undefined,
  encoder: TurnEncoder,
  withJson: boolean,
): GeminiMessageForm {
  encoder.calls = [];
  encoder.answers = [];
  let role: GeminiMessageForm['role'] = null;
  let parts: Part[] = [];
  const trailing: Part[] = [];
  switch (message.role) {
    case 'system':
      break;
    case 'user':
      role = 'user';
      parts = message.content.flatMap((block): Part[] => {
        if (block.type === 'text') return [{ text: block.text }];
        if (block.type === 'image') return [encodeImage(block)];
        return [];
      });
      break;
    case 'tool':
      role = 'user';
      for (const block of message.content) {
        if (block.type !== 'tool_result') continue;
        const { response, trailing: media } = toolResultParts(block, encoder);
        parts.push(response);
        trailing.push(...media);
      }
      break;
    case 'assistant':
      role = 'model';
      parts = modelTurnParts(message, original, encoder);
      break;
  }
  return {
    role,
    parts,
    trailing,
    calls: encoder.calls,
    answers: encoder.answers,
    json: withJson ? geminiPartsJson(parts) : '',
    trailingJson: withJson ? geminiPartsJson(trailing) : '',
  };
}

/** Whether every tool id the message went out with is the link the map records (so stays). */
function idsRecorded(message: Message, context: GeminiContentsContext): boolean {
  if (context.functionCallIds === false) return true;
  return toolIdsRecorded(message, context.toolIdMap, GOOGLE, GOOGLE_TOOL_ID_RULES);
}

const UNKNOWN_TOOL = 'unknown_tool';

/** A tool result: its `functionResponse` part, and the images that go after the turn's. */
function toolResultParts(block: ToolResultBlock, encoder: TurnEncoder): EncodedToolResult {
  const name = encoder.callNames.get(block.tool_use_id) ?? UNKNOWN_TOOL;
  encoder.answers.push([block.tool_use_id, name]);
  const call = { ...encoder.wireId(block.tool_use_id), name };
  return encodeToolResult(block, call, encoder.context.multimodalFunctionResponses === true);
}
