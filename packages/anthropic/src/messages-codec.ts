import type Anthropic from '@anthropic-ai/sdk';
import { AuthError } from '@yourtool/core';
import {
  type AdapterContext,
  type ChunkMapper,
  type DecodedReply,
  requestToolNames,
  type WireCall,
  type WireCodec,
} from '@yourtool/core/adapter';
import {
  type AnthropicParams,
  type AnthropicWireMemory,
  toAnthropicParams,
} from './codec/request.js';
import { fromAnthropicMessage } from './codec/response.js';
import { createAnthropicStreamMapper } from './codec/stream.js';
import { claudeModelInfo } from './models.js';
import { AnthropicCallOptionsSchema, type AnthropicDefaults } from './options.js';
import type { AnthropicChunk } from './transport.js';

/**
 * The Anthropic adapter's codec part: a call's Messages API parameters from the codec's
 * `toAnthropicParams` (this call's options over the configured ones), replies decoded by
 * `fromAnthropicMessage`, streams by `createAnthropicStreamMapper`.
 */
export class AnthropicMessagesCodec
  implements WireCodec<AnthropicParams, Anthropic.Message, AnthropicChunk>
{
  readonly #context: AdapterContext;
  readonly #defaults: AnthropicDefaults;
  readonly #setupProblem: () => string | null;
  readonly #memory: AnthropicWireMemory;

  /**
   * `setupProblem` is the transport's: a call made with no credential fails before encoding.
   * `memory` is the adapter's (decision 0165), shared with its transport's body writer.
   */
  constructor(
    context: AdapterContext,
    defaults: AnthropicDefaults,
    setupProblem: () => string | null,
    memory: AnthropicWireMemory,
  ) {
    this.#memory = memory;
    this.#context = context;
    this.#defaults = defaults;
    this.#setupProblem = setupProblem;
  }

  /**
   * The Messages API parameters of a call (without `stream`), with this call's options over the
   * configured ones. A call made with no credential set fails `auth` here, before any request.
   */
  encode({
    request,
    logger,
    toolIdMap,
    options,
    wireName,
    capabilities,
    modelProvider,
  }: WireCall): AnthropicParams {
    const problem = this.#setupProblem();
    if (problem)
      throw new AuthError(`${modelProvider}: ${problem}`, {
        provider: modelProvider,
        retryable: false,
      });
    const perCall = this.#context.parseCallOptions(AnthropicCallOptionsSchema, options);
    const thinking = perCall.thinking ?? this.#defaults.thinking;
    const version = this.#defaults.anthropicVersion;
    return toAnthropicParams(request, {
      toolIdMap,
      logger,
      memory: this.#memory,
      options: {
        wireName,
        ...(version ? { apiVersion: version } : {}),
        promptCaching: perCall.promptCaching ?? this.#defaults.promptCaching ?? true,
        ...(thinking ? { thinking } : {}),
      },
      model: { ...claudeModelInfo(wireName), capabilities },
    }).params;
  }

  /** A whole reply, decoded by the codec (served model, tool names read back as canonical). */
  decode(
    message: Anthropic.Message,
    _params: AnthropicParams,
    { request, toolIdMap, logger }: WireCall,
  ): DecodedReply {
    return fromAnthropicMessage(message, toolIdMap, {
      logger,
      requestModel: request.model,
      toolNames: requestToolNames(request),
    });
  }

  /** The codec's stream mapper, one per stream. */
  chunkMapper(
    _params: AnthropicParams,
    { request, toolIdMap, logger }: WireCall,
  ): ChunkMapper<AnthropicChunk> {
    return createAnthropicStreamMapper(toolIdMap, logger, request.model, requestToolNames(request));
  }
}
