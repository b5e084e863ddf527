import type {
  ContentBlock as ConverseBlock,
  TokenUsage as ConverseUsage,
} from '@aws-sdk/client-bedrock-runtime';
import {
  type ContentBlock,
  type Logger,
  type StopReason,
  silentLogger,
  type TokenUsage,
  type ToolIdMap,
} from '@yourtool/core';
import {
  canonicalToolName,
  type DecodedReply,
  STRICT_TOOL_NAME_RULES,
} from '@yourtool/core/adapter';
import { BEDROCK_FAMILIES, type BedrockFamily } from '../families.js';
import { BEDROCK } from '../provider.js';
import type { BedrockReply } from '../wire-types.js';

/**
 * A Converse stop reason as the canonical one: a guardrail or content filter is `refusal`;
 * running out of context ends like running out of output tokens; a malformed model output or
 * tool use is `error` (the reply cannot be used as it is). The raw value goes in `provider_raw`.
 */
export function mapBedrockStopReason(reason: string | null | undefined): StopReason {
  switch (reason) {
    case 'tool_use':
      return 'tool_use';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'max_tokens';
    case 'stop_sequence':
      return 'stop_sequence';
    case 'guardrail_intervened':
    case 'content_filtered':
      return 'refusal';
    case 'malformed_model_output':
    case 'malformed_tool_use':
      return 'error';
    default:
      return 'end_turn';
  }
}

/**
 * Converse usage as canonical token counts. Bedrock's `inputTokens` excludes cache reads and
 * writes, as the canonical `input_tokens` does, so each count maps directly.
 */
export function mapBedrockUsage(usage: ConverseUsage | undefined): Partial<TokenUsage> {
  if (usage === undefined) return {};
  return {
    input_tokens: usage.inputTokens ?? 0,
    output_tokens: usage.outputTokens ?? 0,
    cached_input_tokens: usage.cacheReadInputTokens ?? 0,
    cache_creation_input_tokens: usage.cacheWriteInputTokens ?? 0,
  };
}

/** What the adapter keeps of a reply in `provider_raw.bedrock`. */
export interface BedrockRawFacts {
  /** The Bedrock model id the request went to. */
  modelId: string;
  /** Converse's own stop reason. */
  stopReason: string | null;
  /** The stop sequence that matched, when the model reports it (Claude, in its response fields). */
  stopSequence?: string | null;
  /** Bedrock's processing time, when reported. */
  latencyMs?: number | null;
}

/** The `provider_raw` of a reply: `{ bedrock: { model_id, stop_reason, stop_sequence?, latency_ms? } }`. */
export function bedrockProviderRaw(facts: BedrockRawFacts): Record<string, unknown> {
  return {
    bedrock: {
      model_id: facts.modelId,
      stop_reason: facts.stopReason,
      ...(facts.stopSequence ? { stop_sequence: facts.stopSequence } : {}),
      ...(typeof facts.latencyMs === 'number' ? { latency_ms: facts.latencyMs } : {}),
    },
  };
}

/**
 * The stop sequence Claude reports in `additionalModelResponseFields` (`stop_sequence`, or
 * `delta.stop_sequence` as the stream's `messageStop` carries it), if any.
 */
export function reportedStopSequence(fields: unknown): string | null {
  if (typeof fields !== 'object' || fields === null) return null;
  const record = fields as { stop_sequence?: unknown; delta?: { stop_sequence?: unknown } };
  const value = record.stop_sequence ?? record.delta?.stop_sequence;
  return typeof value === 'string' ? value : null;
}

/** Bytes as base64 (redacted reasoning's canonical `data`). */
export function bytesToBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/** What decoding reply content needs besides the blocks. */
export interface ContentDecoding {
  toolIdMap: ToolIdMap;
  /** The family the request went to (its tool id provider key). Default: conservative. */
  family?: BedrockFamily;
  logger?: Logger;
  /** The request's canonical tool names: a derived wire name is read back as one of them. */
  toolNames?: ReadonlySet<string>;
}

/** One Converse block as canonical, or null for a block with no canonical form (a WARN). */
function decodeBlock(block: ConverseBlock, decoding: ContentDecoding): ContentBlock | null {
  const family = decoding.family ?? BEDROCK_FAMILIES.generic;
  if (block.text !== undefined)
    return block.text === '' ? null : { type: 'text', text: block.text };
  if (block.toolUse !== undefined) {
    const name = block.toolUse.name ?? '';
    const input = block.toolUse.input;
    return {
      type: 'tool_use',
      id: decoding.toolIdMap.toCanonical(family.toolIdProvider, block.toolUse.toolUseId ?? ''),
      name: decoding.toolNames
        ? canonicalToolName(name, decoding.toolNames, STRICT_TOOL_NAME_RULES)
        : name,
      input:
        typeof input === 'object' && input !== null && !Array.isArray(input)
          ? (input as Record<string, unknown>)
          : {},
    };
  }
  const reasoning = block.reasoningContent;
  if (reasoning?.reasoningText !== undefined) {
    const { text, signature } = reasoning.reasoningText;
    return { type: 'thinking', text: text ?? '', ...(signature ? { signature } : {}) };
  }
  if (reasoning?.redactedContent !== undefined) {
    return { type: 'redacted_thinking', data: bytesToBase64(reasoning.redactedContent) };
  }
  const kind = Object.keys(block).find(
    (k) => (block as unknown as Record<string, unknown>)[k] !== undefined,
  );
  (decoding.logger ?? silentLogger).warn(
    {
      event: 'block_dropped',
      adapter: BEDROCK,
      block_type: kind ?? 'unknown',
      reason: 'no canonical block for it',
    },
    `dropped a ${kind ?? 'unknown'} block from the reply: the canonical format has no such block`,
  );
  return null;
}

/**
 * Decodes a reply's content blocks: text (empty dropped), tool uses (provider ids linked to
 * canonical ids under the family's key, names read back as canonical), reasoning with its
 * signature kept, redacted reasoning as base64; other blocks are dropped with a WARN.
 */
export function decodeBedrockContent(
  blocks: readonly ConverseBlock[],
  decoding: ContentDecoding,
): ContentBlock[] {
  const out: ContentBlock[] = [];
  for (const block of blocks) {
    const decoded = decodeBlock(block, decoding);
    if (decoded !== null) out.push(decoded);
  }
  return out;
}

/**
 * Decodes a whole Converse reply for a request to `modelId`. Bedrock does not name the model
 * that answered nor give the reply an id of its own, so neither is set.
 */
export function fromBedrockReply(
  reply: BedrockReply,
  modelId: string,
  decoding: ContentDecoding,
): DecodedReply {
  const usage = mapBedrockUsage(reply.usage);
  const stopReason = reply.stopReason ?? null;
  return {
    content: decodeBedrockContent(reply.output?.message?.content ?? [], decoding),
    stop_reason: mapBedrockStopReason(stopReason),
    usage: reply.usage === undefined ? null : (usage as TokenUsage),
    provider_raw: bedrockProviderRaw({
      modelId,
      stopReason,
      stopSequence: reportedStopSequence(reply.additionalModelResponseFields),
      latencyMs: reply.metrics?.latencyMs ?? null,
    }),
  };
}
