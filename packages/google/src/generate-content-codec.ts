import type { GenerateContentParameters, GenerateContentResponse } from '@google/genai';
import {
  type AdapterContext,
  type ChunkMapper,
  type DecodedReply,
  requestToolNames,
  type WireCall,
  type WireCodec,
} from '@yourtool/core/adapter';
import { toGeminiRequest } from './codec/request.js';
import {
  fromGeminiResponse,
  type GeminiDecodeOptions,
  type GeminiResponseLike,
} from './codec/response.js';
import { createGeminiStreamMapper } from './codec/stream.js';
import type { GeminiWireMemory } from './codec/wire-memory.js';
import { geminiModelInfo } from './models.js';
import { GoogleCallOptionsSchema, type GoogleDefaults, googleUsesVertex } from './options.js';

/**
 * The Gemini adapter's codec part: a call's `generateContent` parameters from the codec's
 * `toGeminiRequest`, replies decoded by `fromGeminiResponse` and streams by
 * `createGeminiStreamMapper`, both through the same reply assembler.
 */
export class GeminiGenerateContentCodec
  implements WireCodec<GenerateContentParameters, GenerateContentResponse, GeminiResponseLike>
{
  readonly #context: AdapterContext;
  readonly #defaults: GoogleDefaults;
  readonly #memory: GeminiWireMemory | undefined;

  /**
   * `defaults` are the adapter's checked `config.options`; `memory` the adapter's memory of
   * sealed messages' forms (decision 0194), shared with its transport.
   */
  constructor(context: AdapterContext, defaults: GoogleDefaults, memory?: GeminiWireMemory) {
    this.#context = context;
    this.#defaults = defaults;
    this.#memory = memory;
  }

  /** The `generateContent` parameters of a call, with this call's options over the configured ones. */
  encode(call: WireCall): GenerateContentParameters {
    const { request, logger, toolIdMap, options, wireName, capabilities } = call;
    const perCall = this.#context.parseCallOptions(GoogleCallOptionsSchema, options);
    const thinking = perCall.thinking ?? this.#defaults.thinking;
    const safetySettings = perCall.safetySettings ?? this.#defaults.safetySettings;
    const vertex = googleUsesVertex(this.#defaults);
    return toGeminiRequest(request, {
      toolIdMap,
      historyMemo: call.historyMemo,
      // Vertex AI's contents go through the SDK's converter (decision 0194): nothing to write
      ...(this.#memory && !vertex ? { wireMemory: this.#memory } : {}),
      logger,
      options: {
        wireName,
        ...(thinking !== undefined ? { thinking } : {}),
        ...(safetySettings ? { safetySettings } : {}),
        // Vertex AI refused `id` in function calls and responses (decision 0170)
        ...(vertex ? { functionCallIds: false } : {}),
      },
      model: { ...geminiModelInfo(wireName), capabilities },
    }).params;
  }

  /** A whole reply, decoded by the codec's reply assembler (the one streams go through). */
  decode(
    response: GenerateContentResponse,
    _params: GenerateContentParameters,
    call: WireCall,
  ): DecodedReply {
    return fromGeminiResponse(response, call.toolIdMap, decodeOptions(call));
  }

  /** The codec's stream mapper, one per stream. */
  chunkMapper(_params: GenerateContentParameters, call: WireCall): ChunkMapper<GeminiResponseLike> {
    return createGeminiStreamMapper(call.toolIdMap, decodeOptions(call));
  }
}

/** What the codec's decoders need to know about a call. */
function decodeOptions({ request, logger }: WireCall): GeminiDecodeOptions {
  return {
    stopSequencesSent: request.stop_sequences.length > 0,
    logger,
    request_id: request.request_id,
    model: request.model,
    toolNames: requestToolNames(request),
  };
}
