import type {
  AdapterContext,
  ChunkMapper,
  DecodedReply,
  WireCall,
  WireCodec,
} from '@yourtool/core/adapter';
import type OpenAI from 'openai';
import { OPENAI } from '../codec/request.js';
import { createToolNameDecoder, withCanonicalToolNames } from '../codec/tool-names.js';
import { openAIResponsesModelInfo, temperatureRefusal } from '../models.js';
import { OpenAICallOptionsSchema, type OpenAIConfigOptions } from '../options.js';
import { type OpenAIResponsesEncoding, toOpenAIResponsesParams } from '../responses/request.js';
import { fromOpenAIResponse } from '../responses/response.js';
import {
  createOpenAIResponsesStreamMapper,
  type OpenAIResponsesStreamEvent,
} from '../responses/stream.js';
import type { OpenAIResponsesWireMemory } from '../responses/wire-memory.js';
import { estimatedCounts } from '../sdk-client.js';

/**
 * The codec part of the OpenAI Responses adapter: requests by `toOpenAIResponsesParams` with
 * reasoning effort and summary (per call over the options) only for models that reason,
 * replies by `fromOpenAIResponse`, streams by `createOpenAIResponsesStreamMapper`.
 */
export class OpenAIResponsesCodec
  implements
    WireCodec<OpenAIResponsesEncoding, OpenAI.Responses.Response, OpenAIResponsesStreamEvent>
{
  /** Every event names its item, so argument fragments of two calls may interleave. */
  readonly streamTraits = { toolCallsEndAtFinish: true };
  readonly #context: AdapterContext;
  readonly #options: OpenAIConfigOptions;
  readonly #secrets: () => Array<string | undefined>;
  readonly #memory: OpenAIResponsesWireMemory | undefined;

  /**
   * `secrets` are the client's (key and header values), redacted from a failed reply's error;
   * `memory` is the adapter's wire memory (decision 0193), handed to the encoder with each call.
   */
  constructor(
    context: AdapterContext,
    options: OpenAIConfigOptions,
    secrets: () => Array<string | undefined>,
    memory?: OpenAIResponsesWireMemory,
  ) {
    this.#context = context;
    this.#options = options;
    this.#secrets = secrets;
    this.#memory = memory;
  }

  /**
   * Encodes a request: reasoning effort and summary (per call over the options) only for models
   * that reason (a WARN for each left out), temperature where the model takes it.
   */
  encode(call: WireCall): OpenAIResponsesEncoding {
    const { request, logger, wireName } = call;
    const info = openAIResponsesModelInfo(wireName);
    const perCall = this.#context.parseCallOptions(OpenAICallOptionsSchema, call.options);
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
      capabilities: call.capabilities,
      toolIdMap: call.toolIdMap,
      historyMemo: call.historyMemo,
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
      ...(this.#memory ? { wireMemory: this.#memory } : {}),
    });
  }

  /**
   * The response's output as canonical content (a `failed` response throws its error); a
   * function called under a name the encoder derived is the canonical tool (decision 0140).
   */
  decode(
    response: OpenAI.Responses.Response,
    encoding: OpenAIResponsesEncoding,
    call: WireCall,
  ): DecodedReply {
    const decoded = fromOpenAIResponse(response, call.toolIdMap, {
      logger: call.logger,
      modelProvider: call.modelProvider,
      requestId: call.request.request_id,
      emulatedStopSequences: encoding.emulatedStopSequences,
      secrets: this.#secrets(),
    });
    const content = withCanonicalToolNames(decoded.content, createToolNameDecoder(call.request));
    return { ...decoded, content };
  }

  /** The Responses stream mapper. */
  chunkMapper(
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
      secrets: this.#secrets(),
      toolName: createToolNameDecoder(request),
    });
  }
}
