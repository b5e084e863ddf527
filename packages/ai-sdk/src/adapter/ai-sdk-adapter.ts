import type {
  LanguageModelV4CallOptions,
  LanguageModelV4GenerateResult,
  SharedV4ProviderOptions,
} from '@ai-sdk/provider';
import {
  type AdapterCapabilities,
  type AdapterConfigInput,
  type CallRunnerOptions,
  InvalidRequestError,
} from '@yourtool/core';
import {
  type AdapterContext,
  WireAdapter,
  type WireAttempt,
  type WireTransport,
} from '@yourtool/core/adapter';
import type { AnyStreamPart } from './chunks.js';
import { aiSdkCodec, type CodecModel } from './codec.js';
import type { SpecVersion } from './encode.js';
import { toAdapterError } from './errors.js';
import { type AnyLanguageModel, type AnyUsage, usageFromAiSdk } from './spec.js';
import { type WireRules, wireRulesFor } from './wire-rules.js';

/** Options of {@link AiSdkAdapter}. */
export interface AiSdkAdapterOptions {
  /** Adapter name and provider key: models are `<name>:<modelId>` (default `aisdk`). */
  name?: string;
  /** The adapter configuration (`max_retries`, deadlines; `api_key` only to redact it from errors). */
  config?: AdapterConfigInput;
  /** Runtime options of core's call runner (logger, clock). */
  runtime?: CallRunnerOptions;
  /**
   * What the model can do, over what it reports: an AI SDK model reports only which URLs it
   * fetches itself, so thinking, structured output, caching and limits are declared here.
   */
  capabilities?: Partial<AdapterCapabilities>;
  /** Provider options sent with every call (`{ anthropic: { thinking: { type: 'enabled', budgetTokens: 1024 } } }`). */
  providerOptions?: SharedV4ProviderOptions;
  /** The wire's tool id and tool name rules (default: by the model's provider, {@link wireRulesFor}). */
  rules?: Partial<WireRules>;
}

/** Capabilities an AI SDK model has by specification, before configuration. */
function declared(
  model: AnyLanguageModel,
  overrides: Partial<AdapterCapabilities>,
): AdapterCapabilities {
  const urls = model.supportedUrls;
  const images =
    !(urls instanceof Promise) &&
    Object.keys(urls as object).some((type) => type.startsWith('image/') || type === '*/*');
  return {
    supports_images: images,
    supports_thinking: false,
    supports_tools: true,
    supports_system_prompt: true,
    supports_structured_output: false,
    supports_streaming: true,
    supports_streaming_tool_calls: true,
    supports_parallel_tool_calls: true,
    supports_prompt_caching: false,
    supports_forced_tool_choice: true,
    max_context_tokens: 128_000,
    max_output_tokens: 8_192,
    accepted_image_media_types: ['image/png', 'image/jpeg', 'image/gif', 'image/webp'],
    ...overrides,
  };
}

const PREAMBLE = new Set(['stream-start', 'response-metadata', 'raw']);

/**
 * The parts with the preamble held back until the first part of the reply itself: a stream
 * that ends after its preamble yields nothing, so core treats it as an empty stream (retried).
 */
async function* afterPreamble(parts: AsyncIterable<AnyStreamPart>): AsyncGenerator<AnyStreamPart> {
  const held: AnyStreamPart[] = [];
  let started = false;
  for await (const part of parts) {
    if (!started && PREAMBLE.has(part.type)) {
      held.push(part);
      continue;
    }
    // A finish with no usage before any content is a stream that sent nothing: the SDK's own flush.
    if (
      !started &&
      part.type === 'finish' &&
      usageFromAiSdk(part.usage as AnyUsage | undefined) === null
    )
      return;
    if (!started) yield* held;
    started = true;
    yield part;
  }
}

class AiSdkTransport
  implements WireTransport<LanguageModelV4CallOptions, LanguageModelV4GenerateResult, AnyStreamPart>
{
  readonly #model: AnyLanguageModel;
  readonly #context: AdapterContext;

  constructor(model: AnyLanguageModel, context: AdapterContext) {
    this.#model = model;
    this.#context = context;
  }

  #options(encoded: LanguageModelV4CallOptions, attempt: WireAttempt): never {
    const wire = this.#model.modelId;
    if (attempt.wireName !== wire) {
      throw new InvalidRequestError(`${attempt.request.model}: this adapter calls only ${wire}`, {
        request_id: attempt.request.request_id,
      });
    }
    const headers = this.#context.config.extra_headers;
    // Each specification reads the same call options; v2 and v3 ignore the v4-only ones.
    return {
      ...encoded,
      abortSignal: attempt.signal,
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
    } as never;
  }

  async send(
    encoded: LanguageModelV4CallOptions,
    attempt: WireAttempt,
  ): Promise<LanguageModelV4GenerateResult> {
    return (await this.#model.doGenerate(
      this.#options(encoded, attempt),
    )) as LanguageModelV4GenerateResult;
  }

  async open(
    encoded: LanguageModelV4CallOptions,
    attempt: WireAttempt,
  ): Promise<AsyncIterable<AnyStreamPart>> {
    const result = await this.#model.doStream(this.#options(encoded, attempt));
    return afterPreamble(result.stream as unknown as AsyncIterable<AnyStreamPart>);
  }

  toAdapterError(error: unknown, request: { request_id: string }) {
    return toAdapterError(error, {
      provider: this.#context.config.api_key ? 'ai-sdk' : 'ai-sdk',
      request_id: request.request_id,
      secrets: this.#secrets(),
    });
  }

  #secrets(): string[] {
    const key = this.#context.config.api_key;
    return key ? [key] : [];
  }
}

/**
 * Any AI SDK language model (specification v2, v3 or v4) as this project's `ProviderAdapter`.
 * It calls the model's `doGenerate` / `doStream` directly (no AI SDK retries, no tool
 * execution), with core's retries, deadlines, cancellation and stream contract around them;
 * each reply's provider metadata (signatures, encrypted reasoning, item ids) is kept in
 * `provider_raw.ai_sdk` and sent back as `providerOptions` when the history returns to the
 * same model; errors are mapped to the contract's classes.
 *
 * ```ts
 * const claude = new AiSdkAdapter(anthropic('claude-sonnet-4-6'), { name: 'aisdk-anthropic' });
 * await claude.complete({ model: 'aisdk-anthropic:claude-sonnet-4-6', ... });
 * ```
 */
export class AiSdkAdapter extends WireAdapter<
  LanguageModelV4CallOptions,
  LanguageModelV4GenerateResult,
  AnyStreamPart
> {
  /** The canonical id of the model this adapter calls (`<name>:<modelId>`). */
  readonly model: string;

  constructor(model: AnyLanguageModel, options: AiSdkAdapterOptions = {}) {
    const name = options.name ?? 'aisdk';
    const codecModel: CodecModel = {
      provider: model.provider,
      modelId: model.modelId,
      specificationVersion: model.specificationVersion as SpecVersion,
      rules: wireRulesFor(model.provider, options.rules),
      ...(options.providerOptions ? { providerOptions: options.providerOptions } : {}),
    };
    const key = options.config?.api_key;
    super(
      { name, label: `AI SDK ${model.provider}` },
      options.config ?? {},
      options.runtime ?? {},
      (context) => ({
        codec: aiSdkCodec(codecModel, key ? [key] : []),
        transport: new AiSdkTransport(model, context),
        models: {
          defaultModel: `${name}:${model.modelId}`,
          capabilities: () => declared(model, options.capabilities ?? {}),
        },
      }),
    );
    this.model = `${name}:${model.modelId}`;
  }
}
