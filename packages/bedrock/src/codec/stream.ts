import type {
  ContentBlockDeltaEvent,
  ContentBlockStartEvent,
} from '@aws-sdk/client-bedrock-runtime';
import {
  InvalidRequestError,
  type Logger,
  RateLimitError,
  ServerError,
  type StreamEvent,
  silentLogger,
  type ToolIdMap,
} from '@yourtool/core';
import {
  canonicalToolName,
  STRICT_TOOL_NAME_RULES,
  type StreamBuilder,
} from '@yourtool/core/adapter';
import type { BedrockFamily } from '../families.js';
import { BEDROCK } from '../provider.js';
import type { BedrockChunk } from '../wire-types.js';
import {
  bedrockProviderRaw,
  bytesToBase64,
  mapBedrockStopReason,
  mapBedrockUsage,
  reportedStopSequence,
} from './response.js';

/** What one stream's mapper needs besides the chunks. */
export interface BedrockStreamContext {
  toolIdMap: ToolIdMap;
  /** The family the request went to (its tool id provider key). */
  family: BedrockFamily;
  /** The Bedrock model id the request went to (kept in `provider_raw`). */
  modelId: string;
  logger?: Logger;
  /** The request's canonical tool names: a derived wire name is read back as one of them. */
  toolNames?: ReadonlySet<string>;
}

/** What one stream's mapper remembers between events. */
interface StreamState {
  readonly context: BedrockStreamContext;
  readonly logger: Logger;
  /** Indexes of tool use blocks (they end with `tool.use_end`). */
  readonly toolBlocks: Set<number>;
  /** Redacted reasoning bytes per block index, emitted whole when the block stops. */
  readonly redacted: Map<number, Uint8Array[]>;
  /** The `messageStop` seen, if it was. */
  stop: { reason: string | null; sequence: string | null } | null;
  /** Whether `metadata` arrived, and Bedrock's latency in it. */
  metadata: { latencyMs: number | null } | null;
}

/**
 * A stateful mapper from ConverseStream events to canonical events (one per stream):
 *
 * | ConverseStream | canonical |
 * |---|---|
 * | `messageStart` | nothing (message.start comes from the runner) |
 * | `contentBlockStart` toolUse | `tool.use_start` with a canonical id and name |
 * | `contentBlockDelta` text / reasoning text | `text.delta` / `thinking.delta` (a block with no start starts here) |
 * | `contentBlockDelta` reasoning signature | `thinking.delta` carrying the signature |
 * | `contentBlockDelta` redactedContent | bytes kept; the block, whole, at its stop |
 * | `contentBlockDelta` toolUse.input | `tool.use_input_delta` (none or `""`: input `{}`) |
 * | `contentBlockStop` | `tool.use_end` for a tool use |
 * | `messageStop` | stop reason kept for the end |
 * | `metadata` | usage, then `message.complete` |
 *
 * The message completes only once both `messageStop` and `metadata` arrived (usage comes after
 * the stop), so a stream cut before its usage is incomplete to the runner. `$unknown` events
 * and members are ignored; an exception member (the SDK throws these itself) is thrown as the
 * contract's class.
 */
export function createBedrockStreamMapper(context: BedrockStreamContext) {
  const state: StreamState = {
    context,
    logger: context.logger ?? silentLogger,
    toolBlocks: new Set(),
    redacted: new Map(),
    stop: null,
    metadata: null,
  };
  return (chunk: BedrockChunk, builder: StreamBuilder): StreamEvent[] => {
    if (chunk.contentBlockStart) return onBlockStart(state, chunk.contentBlockStart, builder);
    if (chunk.contentBlockDelta) return onBlockDelta(state, chunk.contentBlockDelta, builder);
    if (chunk.contentBlockStop) {
      return endBlock(state, chunk.contentBlockStop.contentBlockIndex ?? 0, builder);
    }
    if (chunk.messageStop) {
      state.stop = {
        reason: chunk.messageStop.stopReason ?? null,
        sequence: reportedStopSequence(chunk.messageStop.additionalModelResponseFields),
      };
      return finishIfDone(state, builder);
    }
    if (chunk.metadata) {
      builder.updateUsage(mapBedrockUsage(chunk.metadata.usage));
      state.metadata = { latencyMs: chunk.metadata.metrics?.latencyMs ?? null };
      return finishIfDone(state, builder);
    }
    throwIfException(chunk);
    return [];
  };
}

/** `contentBlockStart`: a tool use opens; other starts (image, tool result) carry nothing. */
function onBlockStart(
  state: StreamState,
  event: ContentBlockStartEvent,
  builder: StreamBuilder,
): StreamEvent[] {
  const tool = event.start?.toolUse;
  if (tool === undefined) return [];
  const index = event.contentBlockIndex ?? 0;
  const { family, toolIdMap, toolNames } = state.context;
  const name = tool.name ?? '';
  state.toolBlocks.add(index);
  return builder.toolStart(
    index,
    toolIdMap.toCanonical(family.toolIdProvider, tool.toolUseId ?? ''),
    toolNames ? canonicalToolName(name, toolNames, STRICT_TOOL_NAME_RULES) : name,
  );
}

/** `contentBlockDelta`: text, reasoning (text, signature, redacted bytes) or tool input. */
function onBlockDelta(
  state: StreamState,
  event: ContentBlockDeltaEvent,
  builder: StreamBuilder,
): StreamEvent[] {
  const index = event.contentBlockIndex ?? 0;
  const delta = event.delta;
  if (delta?.text !== undefined) return builder.text(index, delta.text);
  if (delta?.toolUse !== undefined) return builder.toolInput(index, delta.toolUse.input ?? '');
  const reasoning = delta?.reasoningContent;
  if (reasoning?.text !== undefined) return builder.thinking(index, reasoning.text);
  if (reasoning?.signature !== undefined) return builder.thinking(index, '', reasoning.signature);
  if (reasoning?.redactedContent !== undefined) {
    const parts = state.redacted.get(index) ?? [];
    parts.push(reasoning.redactedContent);
    state.redacted.set(index, parts);
  }
  // citations, tool result and image deltas, and `$unknown` members have no canonical event
  return [];
}

/** A block's end: a tool use's `tool.use_end`, or redacted reasoning emitted whole. */
function endBlock(state: StreamState, index: number, builder: StreamBuilder): StreamEvent[] {
  const parts = state.redacted.get(index);
  if (parts !== undefined) {
    state.redacted.delete(index);
    return builder.wholeBlock(index, {
      type: 'redacted_thinking',
      data: bytesToBase64(Buffer.concat(parts)),
    });
  }
  return state.toolBlocks.has(index) ? builder.toolEnd(index) : [];
}

/** `message.complete` once both the stop and the usage arrived. */
function finishIfDone(state: StreamState, builder: StreamBuilder): StreamEvent[] {
  if (state.stop === null || state.metadata === null) return [];
  const events: StreamEvent[] = [];
  // redacted reasoning whose block never stopped still belongs to the reply
  for (const index of [...state.redacted.keys()]) events.push(...endBlock(state, index, builder));
  const raw = bedrockProviderRaw({
    modelId: state.context.modelId,
    stopReason: state.stop.reason,
    stopSequence: state.stop.sequence,
    latencyMs: state.metadata.latencyMs,
  });
  events.push(...builder.complete(mapBedrockStopReason(state.stop.reason), raw));
  return events;
}

/** Throws an exception event as the contract's class (the SDK normally throws it itself). */
function throwIfException(chunk: BedrockChunk): void {
  const fields = { provider: BEDROCK, retryable: true };
  const message = (e: { message?: string | undefined } | undefined) =>
    `bedrock: ${e?.message ?? 'the stream reported an error'}`;
  if (chunk.throttlingException) {
    throw new RateLimitError(message(chunk.throttlingException), fields);
  }
  if (chunk.validationException) {
    throw new InvalidRequestError(message(chunk.validationException), {
      provider: BEDROCK,
      retryable: false,
    });
  }
  const server =
    chunk.internalServerException ??
    chunk.modelStreamErrorException ??
    chunk.serviceUnavailableException;
  if (server) throw new ServerError(message(server), fields);
}
