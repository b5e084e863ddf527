import type { AdapterConfigInput } from '@yourtool/core';
import { type AdapterContext, WireAdapter, type WireCall } from '@yourtool/core/adapter';
import type { OpenAIStreamItem, OpenAIStreamMapperOptions } from '@yourtool/openai/codec';
import {
  type ChatCompletionsEncoding,
  type ChatCompletionsParts,
  type ChatCompletionsRuntimeOptions,
  chatCompletionsParts,
} from '@yourtool/openai/wire';
import OpenAI from 'openai';
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
 * `options.app_url` / `options.app_title` or `extra_headers` (`HTTP-Referer`, `X-Title`). A
 * `WireAdapter` assembled from {@link openRouterParts}: `@yourtool/openai`'s Chat Completions
 * parts with OpenRouter's rules.
 *
 * ```ts
 * const router = new OpenRouterAdapter({ api_key: process.env.OPENROUTER_API_KEY, options: { app_title: 'My app' } });
 * ```
 */
export class OpenRouterAdapter extends WireAdapter<
  ChatCompletionsEncoding,
  OpenAI.ChatCompletion,
  OpenAIStreamItem
> {
  /**
   * Creates an adapter. `api_key` defaults to `OPENROUTER_API_KEY` and `base_url` to
   * `OPENROUTER_BASE_URL` (else `https://openrouter.ai/api/v1`).
   * @throws AdapterOptionError naming an option that is unknown or of the wrong type.
   */
  constructor(config: AdapterConfigInput = {}, runtime: OpenRouterRuntimeOptions = {}) {
    super({ name: OPENROUTER }, config, runtime, openRouterParts);
  }
}

/**
 * OpenRouter's parts: the Chat Completions codec and transport with OpenRouter's rules (the
 * attribution headers, its reasoning, cache writes, native finish reasons and cost figures, its
 * error bodies) and the OpenRouter model table (unknown slugs get conservative ones).
 * @throws AdapterOptionError naming an option that is unknown or of the wrong type.
 */
export function openRouterParts(context: AdapterContext): ChatCompletionsParts {
  const options = context.parseOptions(OpenRouterConfigOptionsSchema);
  const { app_url, app_title } = options;
  return chatCompletionsParts(
    context,
    {
      client: {
        name: OPENROUTER,
        apiKeyEnv: 'OPENROUTER_API_KEY',
        baseUrlEnv: 'OPENROUTER_BASE_URL',
        defaultBaseUrl: OPENROUTER_BASE_URL,
      },
      encode: (call) => encodeOpenRouter(context, options, call),
      // reasoning, cache writes, native finish reasons and cost figures
      decode: (completion, encoding, call) =>
        fromOpenRouterChatCompletion(completion, call.toolIdMap, {
          logger: call.logger,
          stopSequencesSent: encoding.stopSequencesSent,
          emulatedStopSequences: encoding.emulatedStopSequences,
        }),
      streamOptions: (_encoding, call) => openRouterStreamOptions(call),
      // OpenRouter's error bodies and statuses (402, moderation, upstream errors)
      errorOptions: { classify: classifyOpenRouterError },
      // the `app_url` / `app_title` options as the `HTTP-Referer` / `X-Title` attribution
      // headers (`extra_headers` of the same names win)
      createClient: (clientOptions) =>
        new OpenAI({
          ...clientOptions,
          defaultHeaders: {
            ...(app_url ? { 'HTTP-Referer': app_url } : {}),
            ...(app_title ? { 'X-Title': app_title } : {}),
            ...clientOptions.defaultHeaders,
          },
        }),
    },
    {
      defaultModel: DEFAULT_OPENROUTER_MODEL,
      capabilities: (wireName) => openRouterModelInfo(wireName).capabilities,
    },
  );
}

/** Encodes a request with the openai codec, the OpenRouter way. */
function encodeOpenRouter(
  context: AdapterContext,
  configured: OpenRouterConfigOptions,
  call: WireCall,
): ChatCompletionsEncoding {
  const perCall = context.parseCallOptions(OpenRouterCallOptionsSchema, call.options);
  const reasoning = perCall.reasoning ?? configured.reasoning;
  const providerPreferences = perCall.provider ?? configured.provider;
  return toOpenRouterParams(call.request, {
    wireName: call.wireName,
    capabilities: call.capabilities,
    toolIdMap: call.toolIdMap,
    historyMemo: call.historyMemo,
    logger: call.logger,
    stopSequences: openRouterModelInfo(call.wireName).stopSequences,
    ...(reasoning ? { reasoning } : {}),
    ...(providerPreferences ? { providerPreferences } : {}),
  });
}

/** Streams reasoning as thinking, and keeps OpenRouter's routing and cost facts. */
function openRouterStreamOptions(call: WireCall): Partial<OpenAIStreamMapperOptions> {
  const reasoning = createOpenRouterReasoningMapper(call.logger);
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
