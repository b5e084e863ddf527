import {
  type AdapterContext,
  type ChunkMapper,
  type DecodedReply,
  requestToolNames,
  type WireCall,
  type WireCodec,
} from '@yourtool/core/adapter';
import type { ChatResponse } from 'ollama';
import { checkOllamaUsage } from './call-checks.js';
import type { OllamaThinkOption } from './codec/request.js';
import { fromOllamaChatResponse, type OllamaDecodeOptions } from './codec/response.js';
import { createOllamaStreamMapper } from './codec/stream.js';
import type { OllamaModels } from './ollama-models.js';
import { OllamaCallOptionsSchema, type OllamaDefaults } from './options.js';

/**
 * What `encode` decides for one attempt of an Ollama call. The chat parameters themselves wait
 * for the model's capabilities, which `/api/show` may still have to report (an asynchronous
 * read, with the attempt's signal), so `send` / `open` build them and record the `num_ctx` sent.
 */
export interface OllamaCallPlan {
  /** The model's wire name. */
  wireName: string;
  /** Thinking: this call's option, else the configured one. */
  think?: OllamaThinkOption;
  /** Keep-alive: this call's option, else the configured one. */
  keepAlive?: string | number;
  /** The configured model options with this call's over them. */
  modelOptions: Record<string, unknown>;
  /** The `num_ctx` sent (0 until the parameters were built), for the usage checks. */
  numCtx: number;
}

/**
 * The Ollama adapter's codec part: a call's plan (this call's options over the configured
 * ones), replies decoded by `fromOllamaChatResponse` and streams by `createOllamaStreamMapper`,
 * each with the usage checks (estimated usage, a filled context) as a WARN.
 */
export class OllamaChatCodec implements WireCodec<OllamaCallPlan, ChatResponse, ChatResponse> {
  readonly #context: AdapterContext;
  readonly #defaults: OllamaDefaults;
  readonly #models: OllamaModels;

  /** `defaults` are the adapter's checked `config.options`; `models` gives the token estimate. */
  constructor(context: AdapterContext, defaults: OllamaDefaults, models: OllamaModels) {
    this.#context = context;
    this.#defaults = defaults;
    this.#models = models;
  }

  /** This call's options over the configured ones; the parameters wait for the capabilities. */
  encode({ options, wireName }: WireCall): OllamaCallPlan {
    const perCall = this.#context.parseCallOptions(OllamaCallOptionsSchema, options);
    const think = perCall.think ?? this.#defaults.think;
    const keepAlive = perCall.keepAlive ?? this.#defaults.keepAlive;
    return {
      wireName,
      ...(think === undefined ? {} : { think }),
      ...(keepAlive === undefined ? {} : { keepAlive }),
      modelOptions: { ...this.#defaults.modelOptions, ...perCall.options },
      numCtx: 0,
    };
  }

  /** A whole reply, decoded by the codec; usage estimated or the context filled is a WARN. */
  decode(reply: ChatResponse, plan: OllamaCallPlan, call: WireCall): DecodedReply {
    const decoded = fromOllamaChatResponse(reply, call.toolIdMap, this.#decodeOptions(call));
    checkOllamaUsage(decoded.usage, plan.numCtx, call.request, call.logger);
    return decoded;
  }

  /** The codec's stream mapper, one per stream, with the usage checks at the `done` chunk. */
  chunkMapper(plan: OllamaCallPlan, call: WireCall): ChunkMapper<ChatResponse> {
    const map = createOllamaStreamMapper(call.toolIdMap, this.#decodeOptions(call));
    return (chunk, builder) => {
      const events = map(chunk, builder);
      if (chunk.done) checkOllamaUsage(builder.usage, plan.numCtx, call.request, call.logger);
      return events;
    };
  }

  #decodeOptions({ request }: WireCall): OllamaDecodeOptions {
    return {
      estimateInputTokens: () =>
        this.#models.estimateInputTokens(request.messages, request.tools, request.system_prompt),
      requestModel: request.model,
      toolNames: requestToolNames(request),
    };
  }
}
