import type { AdapterConfigInput } from '@yourtool/core';
import { type AdapterContext, WireAdapter, type WireCall } from '@yourtool/core/adapter';
import type OpenAI from 'openai';
import { OpenAIChatWireMemory } from './codec/chat-wire-memory.js';
import { OPENAI, toOpenAIChatParams } from './codec/request.js';
import type { OpenAIStreamItem } from './codec/stream.js';
import { type OpenAIReasoningEffort, openAIModelInfo, temperatureRefusal } from './models.js';
import {
  OpenAICallOptionsSchema,
  type OpenAIConfigOptions,
  OpenAIConfigOptionsSchema,
} from './options.js';
import { type ChatCompletionsParts, chatCompletionsParts } from './wire/chat-completions-parts.js';
import type {
  ChatCompletionsEncoding,
  ChatCompletionsRuntimeOptions,
} from './wire/chat-completions-rules.js';

/** The model whose capabilities `adapter.capabilities` reports. */
export const DEFAULT_OPENAI_MODEL = 'openai:gpt-5';

/** OpenAI's API base URL. */
export const OPENAI_BASE_URL = 'https://api.openai.com/v1';

/**
 * OpenAI's Chat Completions adapter (`POST /chat/completions`): what `OpenAIAdapter` is unless
 * `options.api` is `responses`. Its options ({@link OpenAIConfigOptions}) are checked at
 * construction; `reasoning_summary` is the Responses API's and is not read here.
 */
export class OpenAIChatCompletionsAdapter extends WireAdapter<
  ChatCompletionsEncoding,
  OpenAI.ChatCompletion,
  OpenAIStreamItem
> {
  /**
   * Creates the adapter. `api_key` defaults to `OPENAI_API_KEY` and `base_url` to
   * `OPENAI_BASE_URL` (else `https://api.openai.com/v1`).
   * @throws AdapterOptionError naming an option that is unknown or of the wrong type.
   */
  constructor(config: AdapterConfigInput = {}, runtime: ChatCompletionsRuntimeOptions = {}) {
    super({ name: OPENAI }, config, runtime, openAIChatCompletionsParts);
  }
}

/**
 * OpenAI's Chat Completions parts: the shared Chat Completions codec and transport with OpenAI's
 * rules (the `organization` and `project` options as headers; temperature left out where a
 * model refuses it, stop sequences emulated where it refuses `stop`, `reasoning_effort` only
 * for models that reason) and the GPT model table (unknown models get conservative ones).
 * @throws AdapterOptionError naming an option that is unknown or of the wrong type.
 */
export function openAIChatCompletionsParts(context: AdapterContext): ChatCompletionsParts {
  const options = context.parseOptions(OpenAIConfigOptionsSchema);
  // what the codec remembers between requests, owned by the adapter (decisions 0165, 0191)
  const memory = new OpenAIChatWireMemory();
  return chatCompletionsParts(
    context,
    {
      client: {
        name: OPENAI,
        apiKeyEnv: 'OPENAI_API_KEY',
        baseUrlEnv: 'OPENAI_BASE_URL',
        defaultBaseUrl: OPENAI_BASE_URL,
        organization: options.organization ?? null,
        project: options.project ?? null,
      },
      encode: (call) => encodeOpenAIChat(context, options, call, memory),
      memory,
    },
    {
      defaultModel: DEFAULT_OPENAI_MODEL,
      capabilities: (wireName) => openAIModelInfo(wireName).capabilities,
    },
  );
}

/**
 * Encodes a request for a GPT model: temperature left out (WARN) where the model refuses it,
 * stop sequences emulated where it refuses `stop`, `reasoning_effort` only for models that
 * reason.
 */
function encodeOpenAIChat(
  context: AdapterContext,
  configured: OpenAIConfigOptions,
  call: WireCall,
  memory: OpenAIChatWireMemory,
): ChatCompletionsEncoding {
  const { request, wireName, logger } = call;
  const info = openAIModelInfo(wireName);
  const perCall = context.parseCallOptions(OpenAICallOptionsSchema, call.options);
  const requested = perCall.reasoningEffort ?? configured.reasoning_effort ?? null;
  let reasoningEffort: OpenAIReasoningEffort | null = null;
  if (requested !== null && !info.reasoning) {
    logger.warn(
      {
        event: 'parameter_dropped',
        adapter: OPENAI,
        request_id: request.request_id,
        parameter: 'reasoning_effort',
      },
      `reasoning_effort was not sent: ${wireName} does not reason`,
    );
  } else {
    reasoningEffort = requested;
  }
  return toOpenAIChatParams(request, {
    provider: OPENAI,
    wireName,
    capabilities: call.capabilities,
    toolIdMap: call.toolIdMap,
    historyMemo: call.historyMemo,
    logger,
    temperatureRefusal: temperatureRefusal(
      info,
      wireName,
      reasoningEffort ?? info.defaultReasoningEffort,
    ),
    stopSequences: info.stopSequences,
    reasoningEffort,
    strictStructuredOutput: configured.strict_structured_output ?? true,
    wireMemory: memory,
  });
}
