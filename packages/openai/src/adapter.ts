import type { AdapterCapabilities, AdapterConfigInput } from '@yourtool/core';
import {
  ChatCompletionsAdapter,
  type ChatCompletionsCallContext,
  type ChatCompletionsEncoding,
  type ChatCompletionsRuntimeOptions,
} from './chat-adapter.js';
import { OPENAI, toOpenAIChatParams } from './codec/request.js';
import { type OpenAIReasoningEffort, openAIModelInfo, temperatureRefusal } from './models.js';

/** The model whose capabilities `adapter.capabilities` reports. */
export const DEFAULT_OPENAI_MODEL = 'openai:gpt-5';

/** OpenAI options read from `AdapterConfig.options` (defaults for every call). */
export interface OpenAIConfigOptions {
  /** `OpenAI-Organization` header. */
  organization?: string;
  /** `OpenAI-Project` header. */
  project?: string;
  /**
   * Default `reasoning_effort` for models that reason (per call:
   * `providerOptions.openai.reasoning_effort`). Unset: the model's own default.
   */
  reasoning_effort?: OpenAIReasoningEffort;
  /**
   * Send `output_schema` with `strict: true` when it meets the strict rules (default true);
   * `false` always sends it as guidance only.
   */
  strict_structured_output?: boolean;
}

/** Per-call OpenAI options (`CallOptions.providerOptions.openai`). */
export interface OpenAICallOptions {
  /** `reasoning_effort` for this call. */
  reasoning_effort?: OpenAIReasoningEffort;
}

/** Construction options of {@link OpenAIAdapter} besides the config. */
export type OpenAIRuntimeOptions = ChatCompletionsRuntimeOptions;

/**
 * The OpenAI Chat Completions adapter, on the official `openai` SDK (its own retries off;
 * core's bounded retry on).
 *
 * ```ts
 * const gpt = new OpenAIAdapter({ api_key: process.env.OPENAI_API_KEY });
 * const reply = await gpt.complete({ request_id: newRequestId(), model: 'openai:gpt-5', messages, max_output_tokens: 1024 });
 * ```
 */
export class OpenAIAdapter extends ChatCompletionsAdapter {
  /** Adapter name and provider key. */
  readonly name = OPENAI;

  /**
   * Creates an adapter. `api_key` defaults to `OPENAI_API_KEY` and `base_url` to
   * `OPENAI_BASE_URL` (else `https://api.openai.com/v1`).
   */
  constructor(config: AdapterConfigInput = {}, runtime: OpenAIRuntimeOptions = {}) {
    const options = (config.options ?? {}) as OpenAIConfigOptions;
    super(
      {
        name: OPENAI,
        defaultModel: DEFAULT_OPENAI_MODEL,
        apiKeyEnv: 'OPENAI_API_KEY',
        baseUrlEnv: 'OPENAI_BASE_URL',
        defaultBaseUrl: 'https://api.openai.com/v1',
        organization: options.organization ?? null,
        project: options.project ?? null,
      },
      config,
      runtime,
    );
  }

  /** Capabilities from the GPT model table (unknown models get conservative ones). */
  protected baseCapabilities(wireName: string): AdapterCapabilities {
    return openAIModelInfo(wireName).capabilities;
  }

  /**
   * Encodes a request for a GPT model: temperature left out (WARN) where the model refuses it,
   * stop sequences emulated where it refuses `stop`, `reasoning_effort` only for models that
   * reason.
   */
  protected encode(context: ChatCompletionsCallContext): ChatCompletionsEncoding {
    const { request, wireName, logger } = context;
    const info = openAIModelInfo(wireName);
    const defaults = this.configOptions<OpenAIConfigOptions>();
    const perCall = this.callOptions<OpenAICallOptions>(context.options);
    const requested = perCall.reasoning_effort ?? defaults.reasoning_effort ?? null;
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
      logger,
      temperatureRefusal: temperatureRefusal(
        info,
        wireName,
        reasoningEffort ?? info.defaultReasoningEffort,
      ),
      stopSequences: info.stopSequences,
      reasoningEffort,
      strictStructuredOutput: defaults.strict_structured_output ?? true,
    });
  }
}
