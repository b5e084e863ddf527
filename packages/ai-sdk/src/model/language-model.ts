import type {
  LanguageModelV3,
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
} from '@ai-sdk/provider';
import {
  type CanonicalResponse,
  newSessionId,
  type ProviderAdapter,
  type StreamEvent,
  ToolIdMap,
} from '@yourtool/core';
import type { PriceTable } from '@yourtool/pricing';
import { buildRequest } from './call-options.js';
import { callMetadata } from './metadata.js';
import { METADATA_KEY } from './prompt.js';
import { PartWriter } from './stream-parts.js';
import { ToolNameBridge } from './tool-names.js';
import { finishReasonOf, usageToAiSdk } from './usage.js';

/** Options of {@link createLanguageModel}. */
export interface LanguageModelOptions {
  /** The canonical model id to call (`anthropic:claude-sonnet-4-6`). */
  model: string;
  /** `max_output_tokens` when the call gives no `maxOutputTokens` (default 4096). */
  defaultMaxOutputTokens?: number;
  /** A price table (`@yourtool/pricing`): the cost goes into `providerMetadata.yourtool.cost_usd`. */
  prices?: PriceTable;
  /**
   * The tool id map shared by this model's calls (default: one per model), so the canonical tool
   * ids handed to the AI SDK map back to the provider's ids when they return in a later prompt.
   */
  toolIdMap?: ToolIdMap;
}

/** The AI SDK provider name this bridge reports (`<adapter>.yourtool`). */
function providerName(adapter: ProviderAdapter): string {
  return `yourtool.${adapter.name}`;
}

function contentOf(response: CanonicalResponse, names: ToolNameBridge): LanguageModelV4Content[] {
  const content: LanguageModelV4Content[] = [];
  for (const block of response.content) {
    if (block.type === 'text') content.push({ type: 'text', text: block.text });
    else if (block.type === 'thinking') {
      const signature = block.signature
        ? { providerMetadata: { [METADATA_KEY]: { signature: block.signature } } }
        : {};
      content.push({ type: 'reasoning', text: block.text, ...signature });
    } else if (block.type === 'redacted_thinking') {
      content.push({
        type: 'reasoning',
        text: '',
        providerMetadata: { [METADATA_KEY]: { redactedData: block.data } },
      });
    } else if (block.type === 'tool_use') {
      content.push({
        type: 'tool-call',
        toolCallId: block.id,
        toolName: names.aiSdk(block.name),
        input: JSON.stringify(block.input),
      });
    }
  }
  return content;
}

/** The error the adapter's stream throws after its failed reply's `message.complete`, as a part. */
async function errorAfter(rest: AsyncIterator<StreamEvent>): Promise<LanguageModelV4StreamPart[]> {
  try {
    await rest.next();
    return [];
  } catch (error) {
    return [{ type: 'error', error }];
  }
}

/** A stream of parts pulled from the canonical events as the AI SDK reads them. */
function partStream(
  first: StreamEvent,
  rest: AsyncIterator<StreamEvent>,
  writer: PartWriter,
): ReadableStream<LanguageModelV4StreamPart> {
  let pending: StreamEvent | null = first;
  return new ReadableStream<LanguageModelV4StreamPart>({
    async pull(controller) {
      try {
        const next = pending ? { done: false as const, value: pending } : await rest.next();
        pending = null;
        if (next.done) {
          controller.close();
          return;
        }
        const parts = writer.write(next.value);
        const last = parts.at(-1);
        if (last?.type === 'finish' && last.finishReason.unified === 'error') {
          // A stream that broke ends with its partial reply, then the error: the error goes before the finish.
          parts.splice(-1, 0, ...(await errorAfter(rest)));
        }
        for (const part of parts) controller.enqueue(part);
      } catch (error) {
        // The adapter already retried; the error part carries our AdapterError, which the AI SDK does not retry.
        controller.enqueue({ type: 'error', error });
        controller.close();
      }
    },
    async cancel() {
      await rest.return?.();
    },
  });
}

/**
 * One of this project's adapters as an AI SDK language model (specification v4 for `ai` 7, v3
 * for `ai` 6 and 7), for `generateText` and `streamText`. Retries are the adapter's own; its
 * errors are `AdapterError`s, which the AI SDK's retry (only `APICallError` with `isRetryable`)
 * does not repeat: pass `maxRetries: 0` or not, nothing is sent twice by the AI SDK.
 */
export class YourtoolLanguageModel {
  /** The provider name the AI SDK reports (`yourtool.<adapter name>`). */
  readonly provider: string;
  /** The canonical model id. */
  readonly modelId: string;
  /** No URL is downloaded by the provider itself: the AI SDK fetches URLs it sees. */
  readonly supportedUrls: Record<string, RegExp[]> = { 'image/*': [/^https?:\/\//] };
  readonly #adapter: ProviderAdapter;
  readonly #options: LanguageModelOptions;
  readonly #session_id = newSessionId();
  readonly #toolIdMap: ToolIdMap;
  readonly #toolNames = new ToolNameBridge();

  constructor(adapter: ProviderAdapter, options: LanguageModelOptions) {
    this.#adapter = adapter;
    this.#options = options;
    this.provider = providerName(adapter);
    this.modelId = options.model;
    this.#toolIdMap = options.toolIdMap ?? new ToolIdMap();
  }

  #build(options: LanguageModelV4CallOptions) {
    return buildRequest(options, this.modelId, {
      session_id: this.#session_id,
      max_output_tokens: this.#options.defaultMaxOutputTokens ?? 4096,
      toolNames: this.#toolNames,
    });
  }

  /** One whole call through the adapter's `complete`. */
  async doGenerate(options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> {
    const { request, warnings } = this.#build(options);
    const response = await this.#adapter.complete(request, {
      signal: options.abortSignal,
      toolIdMap: this.#toolIdMap,
    });
    return {
      content: contentOf(response, this.#toolNames),
      finishReason: finishReasonOf(response.stop_reason),
      usage: usageToAiSdk(response.usage),
      providerMetadata: callMetadata({ ...response, model: this.modelId }, this.#options.prices),
      response: { id: response.provider_response_id ?? response.request_id, modelId: this.modelId },
      warnings,
    };
  }

  /**
   * One streamed call through the adapter's `stream`; resolves once the first event arrived, so
   * a failure before it (after the adapter's retries) rejects here, as the AI SDK expects.
   */
  async doStream(options: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult> {
    const { request, warnings } = this.#build(options);
    const events = this.#adapter.stream(
      { ...request, stream: true },
      { signal: options.abortSignal, toolIdMap: this.#toolIdMap },
    );
    const iterator = events[Symbol.asyncIterator]();
    const first = await iterator.next();
    const writer = new PartWriter(this.modelId, this.#toolNames, this.#options.prices);
    if (first.done) return { stream: new ReadableStream({ start: (c) => c.close() }) };
    const stream = partStream(first.value, iterator, writer).pipeThrough(
      new TransformStream<LanguageModelV4StreamPart, LanguageModelV4StreamPart>({
        // The call's warnings belong on stream-start, which the writer emits without any.
        transform(part, controller) {
          controller.enqueue(part.type === 'stream-start' ? { ...part, warnings } : part);
        },
      }),
    );
    return { stream };
  }
}

/**
 * An adapter as an AI SDK `LanguageModel` of specification v4 (`ai` 7): `streamText({ model:
 * createLanguageModel(claude, { model: 'anthropic:claude-sonnet-4-6' }), ... })`.
 */
export function createLanguageModel(
  adapter: ProviderAdapter,
  options: LanguageModelOptions,
): LanguageModelV4 {
  const model = new YourtoolLanguageModel(adapter, options);
  return Object.assign(model, { specificationVersion: 'v4' as const });
}

/**
 * An adapter as an AI SDK `LanguageModel` of specification v3, for `ai` 6 (`ai` 7 takes it too):
 * the same model, its parts a subset both specifications share.
 */
export function createLanguageModelV3(
  adapter: ProviderAdapter,
  options: LanguageModelOptions,
): LanguageModelV3 {
  const model = new YourtoolLanguageModel(adapter, options);
  return Object.assign(model, {
    specificationVersion: 'v3' as const,
  }) as unknown as LanguageModelV3;
}
