import type { LanguageModelV4StreamPart, SharedV4ProviderMetadata } from '@ai-sdk/provider';
import type { StreamEvent, ToolIdMap } from '@yourtool/core';
import type { StreamBuilder } from '@yourtool/core/adapter';
import { RAW_KEY, type RoundTrip, redactedIn, signatureIn } from './round-trip.js';
import { type AnyUsage, stopReasonFromAiSdk, usageFromAiSdk } from './spec.js';

/** A stream part of any specification, as this mapper reads it (v2's parts are a subset). */
export type AnyStreamPart = LanguageModelV4StreamPart | { type: string; [key: string]: unknown };

/** What the mapper needs besides the parts: where tool ids map and whose metadata it keeps. */
export interface ChunkContext {
  toolIdMap: ToolIdMap;
  /** The provider key tool ids are mapped under. */
  providerKey: string;
  /** The model's `provider` and `modelId`, stored with the round-trip data. */
  provider: string;
  modelId: string;
  /** A wire tool name → the canonical name it was derived from. */
  canonicalName: (wire: string) => string;
  /** Maps an AI SDK error part to the error to throw. */
  fail: (error: unknown) => Error;
}

/** Block index of the first event the builder gave for a block, when it gave one. */
function indexIn(events: readonly StreamEvent[]): number | undefined {
  for (const event of events) if ('content_block_index' in event) return event.content_block_index;
  return undefined;
}

/**
 * A chunk mapper for one AI SDK stream: text, reasoning and tool input parts through the
 * builder, each block's provider metadata kept by its canonical index for replay, the
 * signature on the reasoning's last delta, an `error` part thrown, `finish` completing.
 */
export function createPartMapper(context: ChunkContext) {
  const blocks: Record<string, SharedV4ProviderMetadata> = {};
  const keyIndex = new Map<string, number>();
  const tools = new Map<string, string>();
  const keep = (key: string, events: StreamEvent[], metadata: unknown) => {
    const index = indexIn(events) ?? keyIndex.get(key);
    if (index !== undefined) keyIndex.set(key, index);
    if (index !== undefined && metadata)
      blocks[String(index)] = {
        ...blocks[String(index)],
        ...(metadata as SharedV4ProviderMetadata),
      };
    return events;
  };
  const canonical = (id: string) => context.toolIdMap.toCanonical(context.providerKey, id);
  return (chunk: AnyStreamPart, builder: StreamBuilder): StreamEvent[] => {
    const part = chunk as Record<string, unknown> & { type: string };
    const meta = part.providerMetadata as SharedV4ProviderMetadata | undefined;
    switch (part.type) {
      case 'response-metadata':
        if (typeof part.modelId === 'string')
          builder.servedModel(`${context.providerKey}:${part.modelId}`);
        if (typeof part.id === 'string') builder.providerResponseId(part.id);
        return [];
      case 'text-delta':
        return keep(
          `t${part.id}`,
          builder.text(`t${part.id}`, String(part.delta ?? part.textDelta ?? '')),
          meta,
        );
      case 'text-end':
        return keep(`t${part.id}`, [], meta);
      case 'reasoning-start': {
        const redacted = redactedIn(meta);
        if (!redacted) return keep(`r${part.id}`, [], meta);
        const index = builder.content().length;
        keyIndex.set(`r${part.id}`, index);
        return keep(
          `r${part.id}`,
          builder.wholeBlock(`r${part.id}`, { type: 'redacted_thinking', data: redacted }),
          meta,
        );
      }
      case 'reasoning-delta':
        return keep(
          `r${part.id}`,
          builder.thinking(`r${part.id}`, String(part.delta ?? ''), signatureIn(meta)),
          meta,
        );
      case 'reasoning-end': {
        const signature = signatureIn(meta);
        const events =
          signature && !redactedIn(meta) ? builder.thinking(`r${part.id}`, '', signature) : [];
        return keep(`r${part.id}`, events, meta);
      }
      case 'tool-input-start':
        tools.set(String(part.id), String(part.toolName));
        return keep(
          `c${part.id}`,
          builder.toolStart(
            `c${part.id}`,
            canonical(String(part.id)),
            context.canonicalName(String(part.toolName)),
          ),
          meta,
        );
      case 'tool-input-delta':
        return builder.toolInput(`c${part.id}`, String(part.delta ?? ''));
      case 'tool-call':
        return toolCall(part, builder, meta);
      case 'finish': {
        const usage = usageFromAiSdk(part.usage as AnyUsage | undefined);
        if (usage) builder.updateUsage(usage);
        const raw: RoundTrip = { provider: context.provider, model: context.modelId, blocks };
        if (meta) raw.response = meta;
        return builder.complete(stopReasonFromAiSdk(part.finishReason as string), {
          [RAW_KEY]: raw,
        });
      }
      case 'error':
        throw context.fail(part.error);
      default:
        return [];
    }
  };

  function toolCall(
    part: Record<string, unknown>,
    builder: StreamBuilder,
    meta: SharedV4ProviderMetadata | undefined,
  ) {
    const id = String(part.toolCallId);
    const key = `c${id}`;
    const text = typeof part.input === 'string' ? part.input : JSON.stringify(part.input ?? {});
    const input = JSON.parse(text || '{}') as Record<string, unknown>;
    const events: StreamEvent[] = [];
    // Some providers send a tool call whole, with no input parts before it.
    if (!tools.has(id)) {
      tools.set(id, String(part.toolName));
      events.push(
        ...builder.toolStart(key, canonical(id), context.canonicalName(String(part.toolName))),
      );
      events.push(...builder.toolInput(key, text));
    }
    events.push(...builder.toolEnd(key, input));
    return keep(key, events, meta);
  }
}
