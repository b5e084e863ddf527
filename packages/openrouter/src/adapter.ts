import type { AdapterCapabilities, AdapterConfigInput } from '@yourtool/core';
import {
  ChatCompletionsAdapter,
  type ChatCompletionsCallContext,
  type ChatCompletionsClientOptions,
  type ChatCompletionsEncoding,
  type ChatCompletionsRuntimeOptions,
  type OpenAIResponseDecoding,
  type OpenAIStreamMapperOptions,
  type ToOpenAIAdapterErrorOptions,
} from '@yourtool/openai';
import type OpenAI from 'openai';
import { classifyOpenRouterError } from './codec/errors.js';
import { createOpenRouterReasoningMapper, OPENROUTER } from './codec/reasoning.js';
import { toOpenRouterParams } from './codec/request.js';
import {
  fromOpenRouterChatCompletion,
  mapOpenRouterFinishReason,
  type OpenRouterRaw,
} from './codec/response.js';
import { mapOpenRouterUsage, type OpenRouterUsageLike, openRouterCost } from './codec/usage.js';
import { openRouterModelInfo } from './models.js';
import {
  OpenRouterCallOptionsSchema,
  type OpenRouterConfigOptions,
  OpenRouterConfigOptionsSchema,
} from './options.js';

/** The model whose capabilities `adapter.capabilities` reports. */
export const DEFAULT_OPENROUTER_MODEL = 'openrouter:anthropic/claude-sonnet-4.6';

/** OpenRouter's API base URL. */
export const OPENROUTER_BASE_URL = 'https://openrouter.ai/api/v1';

/** Construction options of {@link OpenRouterAdapter} besides the config. */
export type OpenRouterRuntimeOptions = ChatCompletionsRuntimeOptions;

/**
 * The OpenRouter adapter, on the official `openai` SDK and the `@yourtool/openai` codec. Model
 * ids are `openrouter:<slug>` (`openrouter:deepseek/deepseek-v3`). Attribution headers come from
 * `options.app_url` / `options.app_title` or `extra_headers` (`HTTP-Referer`, `X-Title`).
 *
 * ```ts
 * const router = new OpenRouterAdapter({ api_key: process.env.OPENROUTER_API_KEY, options: { app_title: 'My app' } });
 * ```
 */
export class OpenRouterAdapter extends ChatCompletionsAdapter {
  /** Adapter name and provider key. */
  readonly name = OPENROUTER;

  readonly #options: OpenRouterConfigOptions;

  /**
   * Creates an adapter. `api_key` defaults to `OPENROUTER_API_KEY` and `base_url` to
   * `OPENROUTER_BASE_URL` (else `https://openrouter.ai/api/v1`).
   * @throws AdapterOptionError naming an option that is unknown or of the wrong type.
   */
  constructor(config: AdapterConfigInput = {}, runtime: OpenRouterRuntimeOptions = {}) {
    super(
      {
        name: OPENROUTER,
        defaultModel: DEFAULT_OPENROUTER_MODEL,
        apiKeyEnv: 'OPENROUTER_API_KEY',
        baseUrlEnv: 'OPENROUTER_BASE_URL',
        defaultBaseUrl: OPENROUTER_BASE_URL,
      },
      config,
      runtime,
    );
    this.#options = this.parseOptions(OpenRouterConfigOptionsSchema);
  }

  /** Capabilities from the OpenRouter table (unknown slugs get conservative ones). */
  protected baseCapabilities(wireName: string): AdapterCapabilities {
    return openRouterModelInfo(wireName).capabilities;
  }

  /**
   * The client, with the `app_url` / `app_title` options as the `HTTP-Referer` / `X-Title`
   * attribution headers (`extra_headers` of the same names win).
   */
  protected override createClient(options: ChatCompletionsClientOptions): OpenAI {
    const { app_url, app_title } = this.#options;
    return super.createClient({
      ...options,
      defaultHeaders: {
        ...(app_url ? { 'HTTP-Referer': app_url } : {}),
        ...(app_title ? { 'X-Title': app_title } : {}),
        ...options.defaultHeaders,
      },
    });
  }

  /** Encodes a request with the openai codec, the OpenRouter way. */
  protected encodeChat(context: ChatCompletionsCallContext): ChatCompletionsEncoding {
    const perCall = this.parseCallOptions(OpenRouterCallOptionsSchema, context.options);
    const reasoning = perCall.reasoning ?? this.#options.reasoning;
    const providerPreferences = perCall.provider ?? this.#options.provider;
    return toOpenRouterParams(context.request, {
      wireName: context.wireName,
      capabilities: this.capabilitiesFor(context.request.model),
      toolIdMap: context.toolIdMap,
      historyMemo: context.historyMemo,
      logger: context.logger,
      stopSequences: openRouterModelInfo(context.wireName).stopSequences,
      ...(reasoning ? { reasoning } : {}),
      ...(providerPreferences ? { providerPreferences } : {}),
    });
  }

  /** Decodes a reply with reasoning, cache writes, native finish reasons and cost figures. */
  protected override decodeChat(
    completion: OpenAI.ChatCompletion,
    encoding: ChatCompletionsEncoding,
    context: ChatCompletionsCallContext,
  ): OpenAIResponseDecoding {
    return fromOpenRouterChatCompletion(completion, context.toolIdMap, {
      logger: context.logger,
      stopSequencesSent: encoding.stopSequencesSent,
      emulatedStopSequences: encoding.emulatedStopSequences,
    });
  }

  /** Streams reasoning as thinking, and keeps OpenRouter's routing and cost facts. */
  protected override streamOptions(
    _encoding: ChatCompletionsEncoding,
    context: ChatCompletionsCallContext,
  ): Partial<OpenAIStreamMapperOptions> {
    const reasoning = createOpenRouterReasoningMapper(context.logger);
    let upstream: string | null = null;
    let nativeFinish: string | null = null;
    let usage: OpenRouterUsageLike | null = null;
    return {
      onDelta: reasoning.onDelta,
      onChunk: (chunk) => {
        const extra = chunk as OpenAI.ChatCompletionChunk & { provider?: string };
        upstream ??= extra.provider ?? null;
        const choice = chunk.choices?.[0] as { native_finish_reason?: string | null } | undefined;
        if (choice?.native_finish_reason) nativeFinish = choice.native_finish_reason;
        if (chunk.usage) usage = chunk.usage as OpenRouterUsageLike;
      },
      mapUsage: (wire) => mapOpenRouterUsage(wire as OpenRouterUsageLike),
      stopReason: (finish, finishContext) =>
        mapOpenRouterFinishReason(finish, nativeFinish, finishContext),
      providerRaw: (summary) => {
        const shapes = reasoning.shapes();
        const raw: OpenRouterRaw = {
          id: summary.id,
          model: summary.model,
          provider: upstream,
          finish_reason: summary.finish_reason,
          native_finish_reason: nativeFinish,
          ...openRouterCost(usage),
          ...(shapes.length > 0 ? { reasoning_details: shapes } : {}),
          ...(summary.stop_sequence ? { stop_sequence: summary.stop_sequence } : {}),
        };
        return { [OPENROUTER]: raw };
      },
    };
  }

  /** OpenRouter's error bodies and statuses (402, moderation, upstream errors). */
  protected override errorOptions(): Partial<ToOpenAIAdapterErrorOptions> {
    return { classify: classifyOpenRouterError };
  }
}
