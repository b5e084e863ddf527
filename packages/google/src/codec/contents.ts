import type { Content, Part } from '@google/genai';
import {
  type Logger,
  type Message,
  silentLogger,
  type ToolIdMap,
  type ToolIdRules,
  type ToolResultBlock,
} from '@yourtool/core';
import { wireToolName } from '@yourtool/core/adapter';
import {
  type GeminiThoughtSignatures,
  GOOGLE,
  readThoughtSignatures,
  SKIP_THOUGHT_SIGNATURE_VALIDATOR,
} from './signatures.js';
import { GOOGLE_TOOL_NAME_RULES } from './tool-names.js';
import { type EncodedToolResult, encodeImage, encodeToolResult } from './tool-results.js';

/**
 * Rules for the function call ids the adapter sends. Gemini's ids are optional; the adapter
 * always sends one (the canonical id, which conforms) so results match their calls exactly.
 */
export const GOOGLE_TOOL_ID_RULES: ToolIdRules = { pattern: /^[a-zA-Z0-9_-]+$/, maxLength: 64 };

/** What {@link encodeGeminiContents} needs to know about the target. */
export interface GeminiContentsContext {
  toolIdMap: ToolIdMap;
  /** Canonical id of the target model: signatures go back only to the model that made them. */
  targetModel?: string;
  /** Whether the target refuses function calls without a signature (Gemini 3). */
  requiresFunctionCallSignatures?: boolean;
  /**
   * Whether the target takes images nested in `functionResponse.parts` (multimodal function
   * responses, Gemini 3). Default false: a tool result's images go after the turn's function
   * responses.
   */
  multimodalFunctionResponses?: boolean;
  logger?: Logger;
  /** Receives the canonical ids of calls sent with the validator-skip signature. */
  substituted?: string[];
  /**
   * The request's messages as they were before core's `prepareHistory` (by id). Text signatures
   * are kept by position among a message's text blocks as they were stored, blank ones
   * included, and a signed blank text part that `prepareHistory` removed is sent again, so each
   * signature goes back on the part it came with. Default: the messages given.
   */
  originalMessages?: readonly Message[];
  /** The wire name of a canonical tool name; default core's `wireToolName` under Gemini's rule. */
  toolName?: (name: string) => string;
  /**
   * Whether `functionCall` and `functionResponse` carry `id`. Default true (the Gemini API);
   * false for Vertex AI, whose v1 schema had no such field and which refused it with 400
   * ("Unknown name \"id\"") into 2026: calls and results then pair by order and name
   * (decision 0170).
   */
  functionCallIds?: boolean;
}

/** What encoding one message needs besides the message. */
interface TurnEncoder {
  logger: Logger;
  context: GeminiContentsContext;
  /** The `id` a call or result goes out with: its provider id, or none where ids are not sent. */
  wireId: (canonicalId: string) => { id?: string };
  toolName: (name: string) => string;
  /** Wire name of each tool use encoded so far, by canonical id (for its `functionResponse`). */
  callNames: Map<string, string>;
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
  const encoder: TurnEncoder = {
    logger: context.logger ?? silentLogger,
    context,
    wireId: (canonicalId) =>
      context.functionCallIds === false
        ? {}
        : { id: context.toolIdMap.toProviderId(GOOGLE, canonicalId, GOOGLE_TOOL_ID_RULES) },
    toolName: context.toolName ?? ((name) => wireToolName(name, GOOGLE_TOOL_NAME_RULES)),
    callNames: new Map(),
  };
  const originals = new Map((context.originalMessages ?? []).map((m) => [m.id, m]));
  const turns: Array<{ role: 'user' | 'model'; parts: Part[] }> = [];
  const push = (role: 'user' | 'model', parts: Part[]) => {
    if (parts.length === 0) return;
    const last = turns.at(-1);
    if (last && last.role === role) last.parts.push(...parts);
    else turns.push({ role, parts });
  };
  // images of the tool results just encoded, sent once the results of the turn are all out
  const trailing: Part[] = [];
  for (const message of messages) {
    if (message.role !== 'tool' && trailing.length > 0) push('user', trailing.splice(0));
    switch (message.role) {
      case 'system':
        break;
      case 'user':
        push(
          'user',
          message.content.flatMap((block): Part[] => {
            if (block.type === 'text') return [{ text: block.text }];
            if (block.type === 'image') return [encodeImage(block)];
            return [];
          }),
        );
        break;
      case 'tool':
        for (const block of message.content) {
          if (block.type !== 'tool_result') continue;
          const { response, trailing: media } = toolResultParts(block, encoder);
          push('user', [response]);
          trailing.push(...media);
        }
        break;
      case 'assistant':
        push('model', modelTurnParts(message, originals.get(message.id), encoder));
        break;
    }
  }
  push('user', trailing);
  return turns;
}

/** A tool result: its `functionResponse` part, and the images that go after the turn's. */
function toolResultParts(block: ToolResultBlock, encoder: TurnEncoder): EncodedToolResult {
  const call = {
    ...encoder.wireId(block.tool_use_id),
    name: encoder.callNames.get(block.tool_use_id) ?? 'unknown_tool',
  };
  return encodeToolResult(block, call, encoder.context.multimodalFunctionResponses === true);
}

const NO_SIGNATURES: Required<GeminiThoughtSignatures> = { text: {}, tool_use: {} };

/**
 * The parts of a model turn. `message` is the prepared message; `original` the stored one it
 * came from (when known), whose text blocks the signature positions count.
 */
function modelTurnParts(
  message: Message,
  original: Message | undefined,
  encoder: TurnEncoder,
): Part[] {
  const { context } = encoder;
  const sameModel =
    context.targetModel === undefined || message.metadata.model === context.targetModel;
  if (!sameModel) warnDroppedSignatures(original ?? message, encoder);
  const signatures = sameModel ? readThoughtSignatures(original ?? message) : NO_SIGNATURES;
  let walk = signedParts(message, original ?? message, signatures, encoder);
  // prepared blocks are the stored blocks themselves (prepareHistory only removes); should that
  // ever not hold, the prepared message alone is the best guide there is
  if (!walk.matched) walk = signedParts(message, message, signatures, encoder);
  const { parts, firstCall } = walk;
  if (firstCall && !firstCall.part.thoughtSignature && context.requiresFunctionCallSignatures) {
    // Gemini 3 refuses a step whose first function call has no signature; a call made
    // elsewhere has none that could be valid, so Google's documented skip value goes in its
    // place (parallel calls: only the first call of a step carries one).
    firstCall.part.thoughtSignature = SKIP_THOUGHT_SIGNATURE_VALIDATOR;
    context.substituted?.push(firstCall.id);
    encoder.logger.warn(
      {
        event: 'thought_signature_substituted',
        adapter: GOOGLE,
        session_id: message.session_id,
        message_id: message.id,
        block_type: 'tool_use',
        tool_use_id: firstCall.id,
        reason: `the function call has no signature from ${context.targetModel ?? 'this model'}`,
      },
      `function call ${firstCall.id} has no thought signature from ${context.targetModel ?? 'this model'} (made by ${message.metadata.model ?? 'an unknown model'}); sent with Google's validator-skip signature`,
    );
  }
  return parts;
}

/**
 * Walks the stored message's blocks: those the prepared message kept become parts, each with
 * its signature; a text block it removed (blank) that carried a signature is sent again, same
 * text, same signature, in its place. `matched` is false when the prepared blocks are not the
 * stored ones.
 */
function signedParts(
  message: Message,
  original: Message,
  signatures: Required<GeminiThoughtSignatures>,
  encoder: TurnEncoder,
): { parts: Part[]; firstCall: { part: Part; id: string } | undefined; matched: boolean } {
  const kept = message.content;
  let next = 0;
  let textIndex = 0;
  const parts: Part[] = [];
  let firstCall: { part: Part; id: string } | undefined;
  for (const block of original.content) {
    const isKept = kept[next] === block;
    if (isKept) next += 1;
    if (block.type === 'text') {
      const signature = signatures.text[String(textIndex)];
      textIndex += 1;
      if (isKept || (signature && block.text.trim() === '')) {
        parts.push({ text: block.text, ...(signature ? { thoughtSignature: signature } : {}) });
      }
      continue;
    }
    if (!isKept) continue;
    switch (block.type) {
      case 'thinking':
        parts.push({
          text: block.text,
          thought: true,
          ...(block.signature ? { thoughtSignature: block.signature } : {}),
        });
        break;
      case 'redacted_thinking':
        parts.push({ text: '', thought: true, thoughtSignature: block.data });
        break;
      case 'tool_use': {
        const name = encoder.toolName(block.name);
        encoder.callNames.set(block.id, name);
        const signature = signatures.tool_use[block.id];
        const part: Part = {
          functionCall: { ...encoder.wireId(block.id), name, args: block.input },
          ...(signature ? { thoughtSignature: signature } : {}),
        };
        firstCall ??= { part, id: block.id };
        parts.push(part);
        break;
      }
      default:
        break;
    }
  }
  return { parts, firstCall, matched: next === kept.length };
}

/**
 * One `thought_signature_dropped` WARN per signature of a message sent to a model other than
 * the one that produced it, naming the block it belonged to.
 */
function warnDroppedSignatures(message: Message, encoder: TurnEncoder): void {
  const { text, tool_use } = readThoughtSignatures(message);
  const from = message.metadata.model ?? 'an unknown model';
  let textIndex = 0;
  message.content.forEach((block, index) => {
    let signed = false;
    if (block.type === 'text') signed = text[String(textIndex++)] !== undefined;
    else if (block.type === 'tool_use') signed = tool_use[block.id] !== undefined;
    if (!signed) return;
    encoder.logger.warn(
      {
        event: 'thought_signature_dropped',
        adapter: GOOGLE,
        session_id: message.session_id,
        message_id: message.id,
        block_type: block.type,
        block_index: index,
        ...(block.type === 'tool_use' ? { tool_use_id: block.id } : {}),
        reason: `signatures from ${from} are only valid for the model that produced them`,
      },
      `dropped the thought signature of ${block.type} block ${index} of message ${message.id} from ${from}: it goes back only to the model that produced it`,
    );
  });
}
