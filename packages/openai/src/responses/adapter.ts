import type {
  AdapterCapabilities,
  AdapterConfigInput,
  AdapterError,
  CallRunnerOptions,
  CanonicalRequest,
} from '@yourtool/core';
import {
  type ChunkMapper,
  type DecodedReply,
  HistoryMemo,
  type StreamCallSpec,
  WireAdapter,
  type WireAttempt,
  type WireCall,
} from '@yourtool/core/adapter';
import OpenAI from 'openai';
import { toOpenAIAdapterError } from '../codec/errors.js';
import { OPENAI } from '../codec/request.js';
import { openAIStreamBody } from '../codec/stream-body.js';
import { createToolNameDecoder, withCanonicalToolNames } from '../codec/tool-names.js';
import { openAIResponsesModelInfo, temperatureRefusal } from '../models.js';
import {
  OpenAICallOptionsSchema,
  type OpenAIConfigOptions,
  OpenAIConfigOptionsSchema,
} from '../options.js';
import { estimatedCounts, LazyOpenAIClient } from '../sdk-client.js';
import {
  type OpenAIResponsesEncoding,
  type OpenAIResponsesParams,
  toOpenAIResponsesParams,
} from './request.js';
import { fromOpenAIResponse } from './response.js';
import { createOpenAIResponsesStreamMapper, type OpenAIResponsesStreamEvent } from './stream.js';

/** The model whose capabilities `adapter.capabilities` reports. */
export const DEFAULT_OPENAI_RESPONSES_MODEL = 'openai:gpt-5';

/** Construction options of {@link OpenAIResponsesAdapter} besides the config (core's). */
export type OpenAIResponsesRuntimeOptions = CallRunnerOptions;

/**
 * The OpenAI adapter on the Responses API (`POST /responses`), a {@link WireAdapter} on the
 * official `openai` SDK (its own retries off; core's bounded retry on). Provider key `openai`,
 * like `OpenAIAdapter`'s Chat Completions transport, so canonical ids (`openai:gpt-5`), tool id
 * maps and prices are the same. Stateless: every request sends the whole history with
 * `store: false`; models that reason return their reasoning encrypted
 * (`include: ["reasoning.encrypted_content"]`), kept in thinking blocks and replayed to the same
 * model only (decisions 0126, 0127). Its options are `OpenAIAdapter`'s, checked at construction.
 *
 * ```ts
 * const gpt = new OpenAIResponsesAdapter({ api_key: process.env.OPENAI_API_KEY });
 * const reply = await gpt.complete({ request_id: newRequestId(), model: 'openai:gpt-5', messages, max_output_tokens: 1024 });
 * ```
 */
export class OpenAIResponsesAdapter extends WireAdapter<
  OpenAIResponsesEncoding,
  OpenAI.Responses.Response,
  OpenAIResponsesStreamEvent
> {
  /** Adapter name and provider key. */
  readonly name = OPENAI;
  readonly #options: OpenAIConfigOptions;
  readonly #client: LazyOpenAIClient;
  /** What `prepareHistory` remembers between this adapter's requests (decision 0165). */
  readonly #historyMemo = new HistoryMemo();

  /**
   * Creates an adapter. `api_key` defaults to `OPENAI_API_KEY` and `base_url` to
   * `OPENAI_BASE_URL` (else `https://api.openai.com/v1`). The SDK client is built on first use.
   * @throws AdapterOptionError naming an option that is unknown or of the wrong type.
   */
  constructor(config: AdapterConfigInput = {}, runtime: OpenAIResponsesRuntimeOptions = {}) {
    super(OPENAI, config, runtime);
    this.#options = this.parseOptions(OpenAIConfigOptionsSchema);
    this.#client = new LazyOpenAIClient(
      {
        name: OPENAI,
        apiKeyEnv: 'OPENAI_API_KEY',
        baseUrlEnv: 'OPENAI_BASE_URL',
        defaultBaseUrl: 'https://api.openai.com/v1',
        organization: this.#options.organization ?? null,
        project: this.#options.project ?? null,
      },
      { config: this.config, runtime: this.runtime, logger: this.logger },
      (options) => new OpenAI(options),
    );
  }

  protected defaultModel(): string {
    return DEFAULT_OPENAI_RESPONSES_MODEL;
  }

  /** Capabilities from the GPT model table, as the Responses API serves them. */
  protected baseCapabilities(wireName: string): AdapterCapabilities {
    return openAIResponsesModelInfo(wireName).capabilities;
  }

  /**
   * Encodes a request: reasoning effort and summary (per call over the options) only for models
   * that reason (a WARN for each left out), temperature where the model takes it.
   */
  protected encode(call: WireCall): OpenAIResponsesEncoding {
    const { request, logger } = call;
    const wireName = this.wireName(request.model);
    const info = openAIResponsesModelInfo(wireName);
    const perCall = this.parseCallOptions(OpenAICallOptionsSchema, call.options);
    const effort = perCall.reasoningEffort ?? this.#options.reasoning_effort ?? null;
    const summary = perCall.reasoningSummary ?? this.#options.reasoning_summary ?? null;
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
      toolIdMap: call.toolIdMap,
      historyMemo: this.#historyMemo,
      logger,
      reasoning: info.reasoning,
      reasoningEffort: info.reasoning ? effort : null,
      reasoningSummary: info.reasoning ? summary : null,
      temperatureRefusal: temperatureRefusal(
        info,
        wireName,
        (info.reasoning ? effort : null) ?? info.defaultReasoningEffort,
      ),
      strictStructuredOutput: this.#options.strict_structured_output ?? true,
    });
  }

  /** A non-streaming `responses.create`. */
  protected send(encoding: OpenAIResponsesEncoding, attempt: WireAttempt) {
    return this.#client
      .get()
      .responses.create(
        { ...wireParams(encoding.params), stream: false },
        { signal: attempt.signal },
      );
  }

  /**
   * A streaming `responses.create`: the SDK sends it and checks the status; core reads the SSE
   * body a network read at a time (decision 0147).
   */
  protected async open(encoding: OpenAIResponsesEncoding, attempt: WireAttempt) {
    const response = await this.#client
      .get()
      .responses.create(
        { ...wireParams(encoding.params), stream: true as const },
        { signal: attempt.signal },
      )
      .asResponse();
    return openAIStreamBody<OpenAIResponsesStreamEvent>(response);
  }

  /**
   * The response's output as canonical content (a `failed` response throws its error); a
   * function called under a name the encoder derived is the canonical tool (decision 0140).
   */
  protected decode(
    response: OpenAI.Responses.Response,
    encoding: OpenAIResponsesEncoding,
    call: WireCall,
  ): DecodedReply {
    const decoded = fromOpenAIResponse(response, call.toolIdMap, {
      logger: call.logger,
      modelProvider: call.modelProvider,
      requestId: call.request.request_id,
      emulatedStopSequences: encoding.emulatedStopSequences,
      secrets: this.#client.secrets(),
    });
    const content = withCanonicalToolNames(decoded.content, createToolNameDecoder(call.request));
    return { ...decoded, content };
  }

  /** The Responses stream mapper. */
  protected chunkMapper(
    encoding: OpenAIResponsesEncoding,
    call: WireCall,
  ): ChunkMapper<OpenAIResponsesStreamEvent> {
    const { request } = call;
    return createOpenAIResponsesStreamMapper({
      modelProvider: call.modelProvider,
      toolIdMap: call.toolIdMap,
      logger: call.logger,
      requestId: request.request_id,
      emulatedStopSequences: encoding.emulatedStopSequences,
      estimateUsage: (content) => estimatedCounts(request, content),
      secrets: this.#client.secrets(),
      toolName: createToolNameDecoder(request),
    });
  }

  /** Every event names its item, so argument fragments of two calls may interleave. */
  protected override streamTraits(): Pick<
    StreamCallSpec<OpenAIResponsesStreamEvent>,
    'startsMessage' | 'toolCallsEndAtFinish'
  > {
    return { toolCallsEndAtFinish: true };
  }

  /** The SDK's errors as `AdapterError`s, secrets redacted. */
  protected toAdapterError(error: unknown, request: CanonicalRequest): AdapterError {
    return toOpenAIAdapterError(error, request.request_id, {
      provider: OPENAI,
      apiKey: this.#client.apiKey(),
      secrets: Object.values(this.config.extra_headers),
    });
  }

  /**
   * Why no call can be made as configured: no API key in the config or `OPENAI_API_KEY` (named,
   * never quoted). `null` when ready.
   */
  setupProblem(): string | null {
    return this.#client.setupProblem();
  }

  /** Where calls go (telemetry's `server.address`): the client's base URL. */
  protected override serverUrl(): string | undefined {
    return this.#client.baseUrl();
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
