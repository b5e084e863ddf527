import type { Part } from '@google/genai';
import type { Message } from '@yourtool/core';
import {
  type GeminiThoughtSignatures,
  GOOGLE,
  readThoughtSignatures,
  SKIP_THOUGHT_SIGNATURE_VALIDATOR,
} from './signatures.js';
import type { TurnEncoder } from './turn-encoder.js';

const NO_SIGNATURES: Required<GeminiThoughtSignatures> = { text: {}, tool_use: {} };

/**
 * The parts of a model turn. `message` is the prepared message; `original` the stored one it
 * came from (when known), whose text blocks the signature positions count.
 */
export function modelTurnParts(
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
    encoder.warned += 1;
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
        encoder.calls.push([block.id, name]);
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
    encoder.warned += 1;
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
