import type { AdapterConfigInput, CallRunnerOptions } from '@yourtool/core';
import {
  type AdapterContext,
  requestToolNames,
  WireAdapter,
  type WireCodec,
  type WireParts,
} from '@yourtool/core/adapter';
import {
  ACME,
  type AcmeChunk,
  type AcmeCompletion,
  type AcmeRequestBody,
  createChunkMapper,
  decodeMessage,
  encodeRequest,
  stopReasonOf,
  usageOf,
} from './codec.js';
import { acmeCapabilities } from './models.js';
import { AcmeTransport } from './transport.js';

export { ACME_DEFAULT_BASE_URL } from './transport.js';

/**
 * An adapter for the Acme chat API (Mistral-style `POST /chat/completions`, SSE streaming),
 * on `fetch` and core alone: no SDK. A `WireAdapter` assembled from {@link acmeParts}.
 *
 * ```ts
 * const acme = new AcmeAdapter({ api_key: process.env.ACME_API_KEY });
 * const reply = await acme.complete({ request_id: newRequestId(), model: 'acme:small', messages, max_output_tokens: 512 });
 * ```
 */
export class AcmeAdapter extends WireAdapter<AcmeRequestBody, AcmeCompletion, AcmeChunk> {
  constructor(config: AdapterConfigInput = {}, runtime: CallRunnerOptions = {}) {
    super({ name: ACME }, config, runtime, acmeParts);
  }
}

/** The Acme adapter's parts: the codec below, the fetch transport, and the model table. */
export function acmeParts(
  context: AdapterContext,
): WireParts<AcmeRequestBody, AcmeCompletion, AcmeChunk> {
  return {
    codec: acmeCodec,
    transport: new AcmeTransport(context),
    models: { defaultModel: 'acme:small', capabilities: acmeCapabilities },
  };
}

/** The codec part: the pure functions of `codec.ts`, fed with what each call knows. */
const acmeCodec: WireCodec<AcmeRequestBody, AcmeCompletion, AcmeChunk> = {
  encode: (call) =>
    encodeRequest(call.request, {
      wireName: call.wireName,
      capabilities: call.capabilities,
      toolIdMap: call.toolIdMap,
      logger: call.logger,
      historyMemo: call.historyMemo,
    }),
  decode: (completion, _body, call) => {
    const choice = completion.choices[0];
    if (!choice) throw new SyntaxError('the reply has no choices');
    return {
      content: decodeMessage(choice.message, call.toolIdMap, requestToolNames(call.request)),
      stop_reason: stopReasonOf(choice.finish_reason),
      usage: completion.usage ? usageOf(completion.usage) : null,
      provider_raw: { id: completion.id },
      served_model: completion.model ? `${call.modelProvider}:${completion.model}` : null,
    };
  },
  chunkMapper: (_body, call) =>
    createChunkMapper(call.toolIdMap, requestToolNames(call.request), call.modelProvider),
};
