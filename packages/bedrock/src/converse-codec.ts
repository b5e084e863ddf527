import { AuthError } from '@yourtool/core';
import {
  type AdapterContext,
  type ChunkMapper,
  type DecodedReply,
  requestToolNames,
  type WireCall,
  type WireCodec,
} from '@yourtool/core/adapter';
import { toBedrockRequest } from './codec/request.js';
import { fromBedrockReply } from './codec/response.js';
import { createBedrockStreamMapper } from './codec/stream.js';
import { type BedrockFamily, familyOf } from './families.js';
import { BedrockCallOptionsSchema, type BedrockDefaults } from './options.js';
import { BEDROCK } from './provider.js';
import type { BedrockChunk, BedrockReply, BedrockRequest } from './wire-types.js';

/**
 * The Bedrock adapter's codec part: a call's Converse request from `toBedrockRequest` (this
 * call's options over the configured ones, the model's family from `familyOf` with the
 * configured `families`), replies decoded by `fromBedrockReply`, streams by
 * `createBedrockStreamMapper`.
 */
export class BedrockConverseCodec implements WireCodec<BedrockRequest, BedrockReply, BedrockChunk> {
  readonly #context: AdapterContext;
  readonly #defaults: BedrockDefaults;
  readonly #setupProblem: () => string | null;

  /** `setupProblem` is the transport's: a call made with no credential fails before encoding. */
  constructor(
    context: AdapterContext,
    defaults: BedrockDefaults,
    setupProblem: () => string | null,
  ) {
    this.#context = context;
    this.#defaults = defaults;
    this.#setupProblem = setupProblem;
  }

  /** The family of a Bedrock model id under the configured `families`. */
  family(wireName: string): BedrockFamily {
    return familyOf(wireName, this.#defaults.families);
  }

  /**
   * The Converse request of a call, with this call's options over the configured ones. A call
   * made with no credential fails `auth` here, before any request.
   */
  encode({
    request,
    logger,
    toolIdMap,
    options,
    wireName,
    capabilities,
    historyMemo,
  }: WireCall): BedrockRequest {
    const problem = this.#setupProblem();
    if (problem)
      throw new AuthError(`bedrock: ${problem}`, { provider: BEDROCK, retryable: false });
    const perCall = this.#context.parseCallOptions(BedrockCallOptionsSchema, options);
    const thinking = perCall.thinking ?? this.#defaults.thinking;
    const guardrail = this.#defaults.guardrail;
    return toBedrockRequest(request, {
      toolIdMap,
      capabilities,
      logger,
      wireName,
      family: this.family(wireName),
      historyMemo,
      options: {
        promptCaching: perCall.promptCaching ?? this.#defaults.promptCaching ?? true,
        ...(thinking ? { thinking } : {}),
        ...(guardrail ? { guardrail } : {}),
        ...(perCall.additionalModelRequestFields
          ? { additionalModelRequestFields: perCall.additionalModelRequestFields }
          : {}),
      },
    }).request;
  }

  /** A whole reply, decoded (tool ids under the family's key, tool names read back as canonical). */
  decode(
    reply: BedrockReply,
    encoded: BedrockRequest,
    { request, toolIdMap, logger, wireName }: WireCall,
  ): DecodedReply {
    return fromBedrockReply(reply, encoded.modelId ?? wireName, {
      toolIdMap,
      family: this.family(wireName),
      logger,
      toolNames: requestToolNames(request),
    });
  }

  /** The codec's stream mapper, one per stream. */
  chunkMapper(
    encoded: BedrockRequest,
    { request, toolIdMap, logger, wireName }: WireCall,
  ): ChunkMapper<BedrockChunk> {
    return createBedrockStreamMapper({
      toolIdMap,
      family: this.family(wireName),
      modelId: encoded.modelId ?? wireName,
      logger,
      toolNames: requestToolNames(request),
    });
  }
}
