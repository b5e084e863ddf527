import { type AdapterCapabilities, type AdapterConfigInput, type AdapterError, type CallRunnerOptions, AuthError, type CallOptions, type CanonicalRequest, type CanonicalRequestInput, type CanonicalResponse, type Logger, parseModelId, type StreamEvent, ToolIdMap } from '@yourtool/core';
import { AdapterBase, runCompleteCall, runStreamCall } from '@yourtool/core/adapter';
import OpenAI from 'openai';
import { estimatedCounts, estimatedUsage, noApiKeyReason, sdkLogger } from '../chat-adapter.js';
import { toOpenAIAdapterError } from '../codec/errors.js';
import { OPENAI } from '../codec/request.js';
import { createToolNameDecoder, withCanonicalToolNames } from '../codec/tool-names.js';
import {
  type OpenAIReasoningEffort,
  type OpenAIReasoningSummary,
  openAIResponsesModelInfo,
  temperatureRefusal,
} from '../models.js';
import {
  type OpenAIResponsesEncoding,
  type OpenAIResponsesParams,
  toOpenAIResponsesParams,
} from './request.js';
import { fromOpenAIResponse } from './response.js';
import { createOpenAIResponsesStreamMapper, type OpenAIResponsesStreamEvent } from './stream.js';

/** The model whose capabilities `adapter.capabilities` reports. */
export const DEFAULT_OPENAI_RESPONSES_MODEL = 'openai:gpt-5';

/** Options of the Responses transport read from `AdapterConfig.options`. */
export interface OpenAIResponsesConfigOptions {
  /** `OpenAI-Organization` header. */
  organization?: string;
  /** `OpenAI-Project` header. */
  project?: string;
  /** Default `reasoning.effort` for models that reason. Unset: the model's own default. */
  reasoning_effort?: OpenAIReasoningEffort;
  /**
   * Default `reasoning.summary` for models that reason (`auto`, `concise`, `detailed`). Unset:
   * no summary is asked for, so reasoning comes back encrypted only (as `redacted_thinking`).
   * OpenAI may require a verified organization for summaries.
   */
  reasoning_summary?: OpenAIReasoningSummary;
  /**
   * Send `output_schema` with `strict: true` when it meets the strict rules (default true);
   * `false` always sends it as guidance only.
   */
  strict_structured_output?: boolean;
}

/** Per-call options of the Responses transport (`CallOptions.providerOptions.openai`). */
export interface OpenAIResponsesCallOptions {
  /** `reasoning.effort` for this call. */
  reasoning_effort?: OpenAIReasoningEffort;
  /** `reasoning.summary` for this call. */
  reasoning_summary?: OpenAIReasoningSummary;
}

/** Construction options of {@link OpenAIResponsesAdapter} besides the config (core's). */
export type OpenAIResponsesRuntimeOptions = CallRunnerOptions;

/**
 * The OpenAI adapter on the Responses API (`POST /responses`), on the official `openai` SDK (its
 * own retries off; core's bounded retry on). Provider key `openai`, like {@link OpenAIAdapter}'s
 * Chat Completions transport, so canonical ids (`openai:gpt-5`), tool id maps and prices are the
 * same. Stateless: every request sends the whole history with `store: false`; models that reason
 * return their reasoning encrypted (`include: ["reasoning.encrypted_content"]`), kept in thinking
 * blocks and replayed to the same model only (decisions 0126, 0127).
 *
 * ```ts
 * const gpt = new OpenAIResponsesAdapter({ api_key: process.env.OPENAI_API_KEY });
 * const reply = await gpt.complete({ request_id: newRequestId(), model: 'openai:gpt-5', messages, max_output_tokens: 1024 });
 * ```
 */
export class OpenAIResponsesAdapter extends AdapterBase {
  /** Adapter name and provider key. */
  readonly name = OPENAI;
  #client: OpenAI | undefined;

  /**
   * Creates an adapter. `api_key` defaults to `OPENAI_API_KEY` and `base_url` to
   * `OPENAI_BASE_URL` (else `https://api.openai.com/v1`). The SDK client is built on first use.
   */
  constructor(config: AdapterConfigInput = {}, runtime: OpenAIResponsesRuntimeOptions = {}) {
    super(OPENAI, config, runtime);
  }

  protected defaultModel(): string {
    return DEFAULT_OPENAI_RESPONSES_MODEL;
  }

  /** Capabilities from the GPT model table, as the Responses API serves them. */
  protected baseCapabilities(wireName: string): AdapterCapabilities {
    return openAIResponsesModelInfo(wireName).capabilities;
  }

  /** A non-streaming `responses.create` call. */
  complete(request: CanonicalRequestInput, options: CallOptions = {}): Promise<CanonicalResponse> {
    return runCompleteCall(
      this.#setup(),
      request,
      options,
      async ({ request: req, signal, logger }) => {
        const toolIdMap = options.toolIdMap ?? new ToolIdMap();
        const encoding = this.#encode(req, toolIdMap, logger, options);
        const started = Date.now();
        const response = await this.#sdk().responses.create(
          { ...wireParams(encoding.params), stream: false },
          { signal },
        );
        const decoded = fromOpenAIResponse(response, toolIdMap, {
          logger,
          modelProvider: parseModelId(req.model).provider,
          requestId: req.request_id,
          emulatedStopSequences: encoding.emulatedStopSequences,
          secrets: this.#secrets(),
        });
        // a function called under a name the encoder derived is the canonical tool (decision 0140)
        const content = withCanonicalToolNames(decoded.content, createToolNameDecoder(req));
        return {
          request_id: req.request_id,
          model: req.model,
          provider: this.name,
          content,
          stop_reason: decoded.stop_reason,
          usage: decoded.usage ?? estimatedUsage(OPENAI, req, content, logger),
          latency_ms: Date.now() - started,
          provider_raw: decoded.provider_raw,
          ...(decoded.served_model ? { served_model: decoded.served_model } : {}),
          ...(decoded.refusal ? { refusal: decoded.refusal } : {}),
        };
      },
    );
  }

  /** A streaming `responses.create` call, as canonical events. */
  stream(request: CanonicalRequestInput, options: CallOptions = {}): AsyncIterable<StreamEvent> {
    const toolIdMap = options.toolIdMap ?? new ToolIdMap();
    let map: ReturnType<typeof createOpenAIResponsesStreamMapper> | undefined;
    return runStreamCall<OpenAIResponsesStreamEvent>(this.#setup(), request, options, {
      open: async ({ request: req, signal, logger }) => {
        const encoding = this.#encode(req, toolIdMap, logger, options);
        map = createOpenAIResponsesStreamMapper({
          modelProvider: parseModelId(req.model).provider,
          toolIdMap,
          logger,
          requestId: req.request_id,
          emulatedStopSequences: encoding.emulatedStopSequences,
          estimateUsage: (content) => estimatedCounts(req, content),
          secrets: this.#secrets(),
          toolName: createToolNameDecoder(req),
        });
        return this.#sdk().responses.create(
          { ...wireParams(encoding.params), stream: true as const },
          { signal },
        );
      },
      onChunk: (event, builder) => (map ? map(event, builder) : []),
      // every event names its item, so argument fragments of two calls may interleave
      toolCallsEndAtFinish: true,
    });
  }

  #encode(
    request: CanonicalRequest,
    toolIdMap: ToolIdMap,
    logger: Logger,
    options: CallOptions,
  ): OpenAIResponsesEncoding {
    const wireName = this.checkRequest(request);
    const info = openAIResponsesModelInfo(wireName);
    const defaults = this.configOptions<OpenAIResponsesConfigOptions>();
    const perCall = this.callOptions<OpenAIResponsesCallOptions>(options);
    const effort = perCall.reasoning_effort ?? defaults.reasoning_effort ?? null;
    const summary = perCall.reasoning_summary ?? defaults.reasoning_summary ?? null;
    if (!info.reasoning) {
      for (const [parameter, value] of [
        ['reasoning_effort', effort],
        ['reasoning_summary', summary],
      ] as const) {
        if (value === null) continue;
        logger.warn(
          {
            event: 'parameter_dropped',
            adapter: OPENAI,
            request_id: request.request_id,
            parameter,
          },
          `${parameter} was not sent: ${wireName} does not reason`,
        );
      }
    }
    return toOpenAIResponsesParams(request, {
      provider: OPENAI,
      wireName,
      capabilities: this.capabilitiesFor(request.model),
      toolIdMap,
      logger,
      reasoning: info.reasoning,
      reasoningEffort: info.reasoning ? effort : null,
      reasoningSummary: info.reasoning ? summary : null,
      temperatureRefusal: temperatureRefusal(
        info,
        wireName,
        (info.reasoning ? effort : null) ?? info.defaultReasoningEffort,
      ),
      strictStructuredOutput: defaults.strict_structured_output ?? true,
    });
  }

  /**
   * Why no call can be made as configured: no API key in the config or `OPENAI_API_KEY` (named,
   * never quoted). `null` when ready.
   */
  setupProblem(): string | null {
    return this.#apiKey() ? null : noApiKeyReason(OPENAI, 'OPENAI_API_KEY');
  }

  #apiKey(): string | undefined {
    return this.config.api_key ?? process.env.OPENAI_API_KEY ?? undefined;
  }

  /** What is redacted from errors and SDK log lines: the API key and custom header values. */
  #secrets(): Array<string | undefined> {
    return [this.#apiKey(), ...Object.values(this.config.extra_headers)];
  }

  #sdk(): OpenAI {
    if (this.#client) return this.#client;
    const apiKey = this.#apiKey();
    if (!apiKey) {
      throw new AuthError(noApiKeyReason(OPENAI, 'OPENAI_API_KEY'), { provider: OPENAI });
    }
    const options = this.configOptions<OpenAIResponsesConfigOptions>();
    this.#client = new OpenAI({
      apiKey,
      baseURL: this.config.base_url ?? process.env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1',
      organization: options.organization ?? null,
      project: options.project ?? null,
      maxRetries: 0,
      timeout: this.config.timeout_seconds * 1000,
      defaultHeaders: { ...this.config.extra_headers },
      // The SDK's own warnings go to the adapter's logger (redacted), never to the console.
      logger: sdkLogger(this.logger, OPENAI, () => this.#secrets()),
      logLevel: 'warn',
      ...(this.runtime.fetch ? { fetch: this.runtime.fetch } : {}),
    });
    return this.#client;
  }

  #setup() {
    return this.callSetup(
      (error, request): AdapterError =>
        toOpenAIAdapterError(error, request.request_id, {
          provider: OPENAI,
          apiKey: this.#apiKey(),
          secrets: Object.values(this.config.extra_headers),
        }),
    );
  }
}

/**
 * The encoded parameters as the SDK's type: the adapter's input items are a subset of what the
 * API takes, typed without the server ids the SDK's output types require.
 */
function wireParams(
  params: OpenAIResponsesParams,
): Omit<OpenAI.Responses.ResponseCreateParamsNonStreaming, 'stream'> {
  return params as unknown as Omit<OpenAI.Responses.ResponseCreateParamsNonStreaming, 'stream'>;
}
