import type { Content, Part } from '@google/genai';
import { type Message, silentLogger, type ToolIdRules, type ToolResultBlock } from '@yourtool/core';
import { type EncodedWireForm, wireToolName } from '@yourtool/core/adapter';
import { modelTurnParts } from './model-turn.js';
import { GOOGLE } from './signatures.js';
import { GOOGLE_TOOL_NAME_RULES } from './tool-names.js';
import { type EncodedToolResult, encodeImage, encodeToolResult } from './tool-results.js';
import type { GeminiContentsContext, TurnEncoder } from './turn-encoder.js';
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
  const encoder: TurnEncoder = {
    logger: context.logger ?? silentLogger,
    context,
    wireId: (canonicalId) =>
      context.functionCallIds === false
        ? {}
        : { id: context.toolIdMap.toProviderId(GOOGLE, canonicalId, GOOGLE_TOOL_ID_RULES) },
    toolName: context.toolName ?? ((name) => wireToolName(name, GOOGLE_TOOL_NAME_RULES)),
    callNames: new Map(),
    calls: [],
    answers: [],
    warned: 0,
  };
  const memory = context.wireMemory;
  const withJson = memory !== undefined;
  const target = memory?.context(context.toolIdMap, targetKey(context));
  const originals = new Map<string, Message>();
  for (const m of context.originalMessages ?? []) originals.set(m.id, m);
  const remembered = (message: Message, kept: boolean) =>
    encodeMemorable(message, originals.get(message.id), encoder, kept);
  const turns = new TurnWriter(withJson);
  for (const message of messages) {
    if (message.role !== 'tool') turns.flushTrailing();
    const original = originals.get(message.id);
    let form =
      target !== undefined && (original === undefined || original === message)
        ? (memory as GeminiWireMemory).forms.get(message, target, remembered)
        : encodeForm(message, original, encoder, withJson);
    if (form.answers.length > 0 && !answersHold(form, encoder.callNames)) {
      form = encodeForm(message, original, encoder, withJson);
    }
    for (let i = 0; i < form.calls.length; i++) {
      const [id, name] = form.calls[i] as readonly [string, string];
      encoder.callNames.set(id, name);
    }
    turns.add(form);
  }
  turns.flushTrailing();
  return { contents: turns.contents, json: withJson ? turns.bytes() : null };
}

/** The JSON between and around turns, as the SDK writes it (`parts`, then `role`). */
const COMMA = utf8(',');
const TURN_START = utf8('{"parts":[');
const TURN_END = { user: utf8('],"role":"user"}'), model: utf8('],"role":"model"}') } as const;
const OPEN = utf8('[');
const CLOSE = utf8(']');

/**
 * Assembles message forms into turns (consecutive same-role parts merge, a run of tool
 * results' images after it) and, when asked, the turns' JSON: the remembered UTF-8 pieces are
 * copied once, into the bytes sent (a string would be copied again and encoded on each send).
 */
class TurnWriter {
  readonly contents: Content[] = [];
  readonly #withJson: boolean;
  readonly #pieces: Uint8Array[] = [OPEN];
  #open: 'user' | 'model' | undefined;
  readonly #trailing: Part[] = [];
  readonly #trailingPieces: Uint8Array[] = [];

  constructor(withJson: boolean) {
    this.#withJson = withJson;
  }

  /** Adds a message's parts, and keeps its trailing images for the end of the run. */
  add(form: GeminiMessageForm): void {
    if (form.role !== null) this.#push(form.role, form.parts, [form.bytes]);
    if (form.trailing.length > 0) {
      this.#trailing.push(...form.trailing);
      if (this.#trailingPieces.length > 0) this.#trailingPieces.push(COMMA);
      this.#trailingPieces.push(form.trailingBytes);
    }
  }

  /** Sends the images of the tool results just added, once the results are all out. */
  flushTrailing(): void {
    if (this.#trailing.length === 0) return;
    this.#push('user', this.#trailing.splice(0), this.#trailingPieces.splice(0));
  }

  /** The JSON of the contents, as UTF-8. */
  bytes(): Uint8Array {
    if (this.#open !== undefined) this.#pieces.push(TURN_END[this.#open]);
    this.#open = undefined;
    this.#pieces.push(CLOSE);
    return concatBytes(this.#pieces);
  }

  #push(role: 'user' | 'model', parts: readonly Part[], json: readonly Uint8Array[]): void {
    if (parts.length === 0) return;
    const last = this.contents.at(-1);
    if (last !== undefined && last.role === role) {
      last.parts?.push(...parts);
      if (this.#withJson) this.#pieces.push(COMMA, ...json);
      return;
    }
    this.contents.push({ role, parts: [...parts] });
    if (!this.#withJson) return;
    if (this.#open !== undefined) this.#pieces.push(TURN_END[this.#open], COMMA);
    this.#pieces.push(TURN_START, ...json);
    this.#open = role;
  }
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
function answersHold(form: GeminiMessageForm, callNames: ReadonlyMap<string, string>): boolean {
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
    bytes: withJson ? utf8(geminiPartsJson(parts)) : NO_BYTES,
    trailingBytes: withJson ? utf8(geminiPartsJson(trailing)) : NO_BYTES,
  };
}

/** Whether every tool id the message went out with is the link the map records (so stays). */
function idsRecorded(message: Message, context: GeminiContentsContext): boolean {
  if (context.functionCallIds === false) return true;
  const { toolIdMap } = context;
  return message.content.every((block) => {
    const id =
      block.type === 'tool_use'
        ? block.id
        : block.type === 'tool_result'
          ? block.tool_use_id
          : null;
    if (id === null) return true;
    // a recorded link that breaks the rules is derived afresh (unrecorded) each time
    const recorded = toolIdMap.getProviderId(GOOGLE, id);
    return (
      recorded !== undefined &&
      toolIdMap.toProviderId(GOOGLE, id, GOOGLE_TOOL_ID_RULES) === recorded
    );
  });
}

function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return;
  // typed arrays (the forms' UTF-8) cannot be frozen; nothing writes to them
  if (ArrayBuffer.isView(value)) return;
  Object.freeze(value);
  for (const inner of Object.values(value)) deepFreeze(inner);
}

const UNKNOWN_TOOL = 'unknown_tool';
const NO_BYTES = new Uint8Array(0);

/** A tool result: its `functionResponse` part, and the images that go after the turn's. */
function toolResultParts(block: ToolResultBlock, encoder: TurnEncoder): EncodedToolResult {
  const name = encoder.callNames.get(block.tool_use_id) ?? UNKNOWN_TOOL;
  encoder.answers.push([block.tool_use_id, name]);
  const call = { ...encoder.wireId(block.tool_use_id), name };
  return encodeToolResult(block, call, encoder.context.multimodalFunctionResponses === true);
}
