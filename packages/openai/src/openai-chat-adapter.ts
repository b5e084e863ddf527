import type { AdapterCapabilities, AdapterConfigInput } from '@yourtool/core';
import type OpenAI from 'openai';
import {
  ChatCompletionsAdapter,
  type ChatCompletionsCallContext,
  type ChatCompletionsClientOptions,
  type ChatCompletionsEncoding,
  type ChatCompletionsRuntimeOptions,
} from './chat-adapter.js';
import { OPENAI, toOpenAIChatParams } from './codec/request.js';
import { type OpenAIReasoningEffort, openAIModelInfo, temperatureRefusal } from './models.js';
import {
  OpenAICallOptionsSchema,
  type OpenAIConfigOptions,
  OpenAIConfigOptionsSchema,
} from './options.js';

/** The model whose capabilities `adapter.capabilities` reports. */
export const DEFAULT_OPENAI_MODEL = 'openai:gpt-5';

/** OpenAI's API base URL. */
export const OPENAI_BASE_URL = 'https://api.openai.com/v1';

/**
 * OpenAI's Chat Completions transport (`POST /chat/completions`): what `OpenAIAdapter` calls
 * unless `options.api` is `responses`. Its options ({@link OpenAIConfigOptions}) are checked at
 * construction; `reasoning_summary` is the Responses API's and is not read here.
 */
export class OpenAIChatCompletionsAdapter extends ChatCompletionsAdapter {
  /** Adapter name and provider key. */
  readonly name = OPENAI;
  readonly #options: OpenAIConfigOptions;

  /**
   * Creates the transport. `api_key` defaults to `OPENAI_API_KEY` and `base_url` to
   * `OPENAI_BASE_URL` (else `https://api.openai.com/v1`).
   * @throws AdapterOptionError naming an option that is unknown or of the wrong type.
   */
  constructor(config: AdapterConfigInput = {}, runtime: ChatCompletionsRuntimeOptions = {}) {
    super(
      {
        name: OPENAI,
        defaultModel: DEFAULT_OPENAI_MODEL,
        apiKeyEnv: 'OPENAI_API_KEY',
        baseUrlEnv: 'OPENAI_BASE_URL',
        defaultBaseUrl: OPENAI_BASE_URL,
      },
      config,
      runtime,
    );
    this.#options = this.parseOptions(OpenAIConfigOptionsSchema);
  }

  /** Capabilities from the GPT model table (unknown models get conservative ones). */
  protected baseCapabilities(wireName: string): AdapterCapabilities {
    return openAIModelInfo(wireName).capabilities;
  }

  /** The client, with the `organization` and `project` options as headers. */
  protected override createClient(options: ChatCompletionsClientOptions): OpenAI {
    return super.createClient({
      ...options,
      organization: this.#options.organization ?? null,
      project: this.#options.project ?? null,
    });
  }

  /**
   * Encodes a request for a GPT model: temperature left out (WARN) where the model refuses it,
   * stop sequences emulated where it refuses `stop`, `reasoning_effort` only for models that
   * reason.
   */
  protected encodeChat(context: ChatCompletionsCallContext): ChatCompletionsEncoding {
    const { request, wireName, logger } = context;
    const info = openAIModelInfo(wireName);
    const perCall = this.parseCallOptions(OpenAICallOptionsSchema, context.options);
    const requested = perCall.reasoningEffort ?? this.#options.reasoning_effort ?? null;
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
      capabilities: this.capabilitiesFor(request.model),
      toolIdMap: context.toolIdMap,
      historyMemo: context.historyMemo,
      logger,
      temperatureRefusal: temperatureRefusal(
        info,
        wireName,
        reasoningEffort ?? info.defaultReasoningEffort,
      ),
      stopSequences: info.stopSequences,
      reasoningEffort,
      strictStructuredOutput: this.#options.strict_structured_output ?? true,
    });
  }
}
