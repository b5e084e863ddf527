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

type Part = Record<string, unknown> & { type: string };

/** One stream's state: each block's metadata by canonical index, the tool calls already begun. */
class PartMapper {
  readonly #context: ChunkContext;
  readonly #blocks: Record<string, SharedV4ProviderMetadata> = {};
  readonly #keyIndex = new Map<string, number>();
  readonly #tools = new Set<string>();

  constructor(context: ChunkContext) {
    this.#context = context;
  }

  map(part: Part, builder: StreamBuilder): StreamEvent[] {
    const meta = part.providerMetadata as SharedV4ProviderMetadata | undefined;
    const id = String(part.id);
    switch (part.type) {
      case 'response-metadata':
        if (typeof part.modelId === 'string')
          builder.servedModel(`${this.#context.providerKey}:${part.modelId}`);
        if (typeof part.id === 'string') builder.providerResponseId(part.id);
        return [];
      case 'text-delta':
        return this.#keep(`t${id}`, builder.text(`t${id}`, String(part.delta ?? '')), meta);
      case 'text-end':
        return this.#keep(`t${id}`, [], meta);
      case 'reasoning-start':
        return this.#reasoningStart(`r${id}`, builder, meta);
      case 'reasoning-delta':
        return this.#keep(
          `r${id}`,
          builder.thinking(`r${id}`, String(part.delta ?? ''), signatureIn(meta)),
          meta,
        );
      case 'reasoning-end': {
        const signature = signatureIn(meta);
        // The signature may come only at the end: it closes the thinking block.
        const events =
          signature && !redactedIn(meta) ? builder.thinking(`r${id}`, '', signature) : [];
        return this.#keep(`r${id}`, events, meta);
      }
      case 'tool-input-start':
        this.#tools.add(id);
        return this.#keep(
          `c${id}`,
          builder.toolStart(`c${id}`, this.#canonical(id), this.#name(part.toolName)),
          meta,
        );
      case 'tool-input-delta':
        return builder.toolInput(`c${id}`, String(part.delta ?? ''));
      case 'tool-call':
        return this.#toolCall(part, builder, meta);
      case 'finish':
        return this.#finish(part, builder, meta);
      case 'error':
        throw this.#context.fail(part.error);
      default:
        return [];
    }
  }

  #keep(
    key: string,
    events: StreamEvent[],
    metadata: SharedV4ProviderMetadata | undefined,
  ): StreamEvent[] {
    const index = indexIn(events) ?? this.#keyIndex.get(key);
    if (index === undefined) return events;
    this.#keyIndex.set(key, index);
    if (metadata) this.#blocks[String(index)] = { ...this.#blocks[String(index)], ...metadata };
    return events;
  }

  #canonical(id: string): string {
    return this.#context.toolIdMap.toCanonical(this.#context.providerKey, id);
  }

  #name(wire: unknown): string {
    return this.#context.canonicalName(String(wire));
  }

  #reasoningStart(key: string, builder: StreamBuilder, meta: SharedV4ProviderMetadata | undefined) {
    const redacted = redactedIn(meta);
    if (!redacted) return this.#keep(key, [], meta);
    this.#keyIndex.set(key, builder.content().length);
    return this.#keep(
      key,
      builder.wholeBlock(key, { type: 'redacted_thinking', data: redacted }),
      meta,
    );
  }

  #toolCall(part: Part, builder: StreamBuilder, meta: SharedV4ProviderMetadata | undefined) {
    const id = String(part.toolCallId);
    const key = `c${id}`;
    const text = typeof part.input === 'string' ? part.input : JSON.stringify(part.input ?? {});
    const input = JSON.parse(text || '{}') as Record<string, unknown>;
    const events: StreamEvent[] = [];
    // Some providers send a tool call whole, with no input parts before it.
    if (!this.#tools.has(id)) {
      this.#tools.add(id);
      events.push(...builder.toolStart(key, this.#canonical(id), this.#name(part.toolName)));
      events.push(...builder.toolInput(key, text));
    }
    events.push(...builder.toolEnd(key, input));
    return this.#keep(key, events, meta);
  }

  #finish(part: Part, builder: StreamBuilder, meta: SharedV4ProviderMetadata | undefined) {
    const usage = usageFromAiSdk(part.usage as AnyUsage | undefined);
    if (usage) builder.updateUsage(usage);
    const raw: RoundTrip = {
      provider: this.#context.provider,
      model: this.#context.modelId,
      blocks: this.#blocks,
    };
    if (meta) raw.response = meta;
    return builder.complete(stopReasonFromAiSdk(part.finishReason as string), { [RAW_KEY]: raw });
  }
}

/**
 * A chunk mapper for one AI SDK stream: text, reasoning and tool input parts through the
 * builder, each block's provider metadata kept by its canonical index for replay, the
 * signature on the reasoning's last delta, an `error` part thrown, `finish` completing.
 */
export function createPartMapper(context: ChunkContext) {
  const mapper = new PartMapper(context);
  return (chunk: AnyStreamPart, builder: StreamBuilder): StreamEvent[] =>
    mapper.map(chunk as Part, builder);
}
