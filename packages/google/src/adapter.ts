import type { GenerateContentParameters, GenerateContentResponse } from '@google/genai';
import type { AdapterConfigInput, CallRunnerOptions } from '@yourtool/core';
import { type AdapterContext, WireAdapter, type WireParts } from '@yourtool/core/adapter';
import { GOOGLE } from './codec/request.js';
import type { GeminiResponseLike } from './codec/response.js';
import { GeminiWireMemory } from './codec/wire-memory.js';
import { GeminiGenerateContentCodec } from './generate-content-codec.js';
import { geminiModelInfo } from './models.js';
import { GoogleConfigOptionsSchema } from './options.js';
import { GoogleTransport } from './transport.js';

export type { GoogleCallOptions, GoogleConfigOptions } from './options.js';

/** The model whose capabilities `adapter.capabilities` reports. */
export const DEFAULT_GOOGLE_MODEL = 'google:gemini-2.5-flash';

/** Construction options of {@link GoogleAdapter} besides the config (core's, unchanged). */
export type GoogleRuntimeOptions = CallRunnerOptions;

/**
 * The Gemini adapter, on the official `@google/genai` SDK (its own retries off; core's bounded
 * retry on): `generateContent` and `generateContentStream`, against the Gemini API with an API
 * key or Vertex AI through the same SDK's options. A `WireAdapter` assembled from {@link googleParts}: the request is encoded by
 * the codec's `toGeminiRequest`, and the reply decoded by `fromGeminiResponse` (streamed: the
 * SDK sends the request, core reads the SSE body, and `createGeminiStreamMapper` maps its
 * chunks), both through the same reply assembler.
 *
 * ```ts
 * const gemini = new GoogleAdapter({ api_key: process.env.GEMINI_API_KEY });
 * const reply = await gemini.complete({ request_id: newRequestId(), model: 'google:gemini-2.5-flash', messages, max_output_tokens: 1024 });
 * ```
 */
export class GoogleAdapter extends WireAdapter<
  GenerateContentParameters,
  GenerateContentResponse,
  GeminiResponseLike
> {
  /**
   * Creates an adapter. `api_key` defaults to `GEMINI_API_KEY` (or `GOOGLE_API_KEY`); `base_url`
   * to the SDK's endpoint (or `GOOGLE_GEMINI_BASE_URL`). The SDK client is built on first use.
   * @throws AdapterOptionError for an unknown key or a wrong type in `config.options`
   *   (`vertexai: "false"` is one: a string is not a boolean).
   */
  constructor(config: AdapterConfigInput = {}, runtime: GoogleRuntimeOptions = {}) {
    super({ name: GOOGLE, label: 'Google' }, config, runtime, googleParts);
  }
}

/**
 * The Gemini adapter's parts, from its validated config: the `generateContent` codec, the SDK
 * transport, and the Gemini model table (see `GEMINI_MODELS`). The codec and the transport
 * share one `GeminiWireMemory` (decision 0194), which lives as long as the parts.
 * @throws AdapterOptionError for an unknown key or a wrong type in `config.options`.
 */
export function googleParts(
  context: AdapterContext,
): WireParts<GenerateContentParameters, GenerateContentResponse, GeminiResponseLike> {
  const defaults = context.parseOptions(GoogleConfigOptionsSchema, GOOGLE);
  // the adapter's memory of sealed messages' wire forms, shared by its codec and transport (0194)
  const memory = new GeminiWireMemory();
  return {
    codec: new GeminiGenerateContentCodec(context, defaults, memory),
    transport: new GoogleTransport(context, defaults, memory),
    models: {
      defaultModel: DEFAULT_GOOGLE_MODEL,
      capabilities: (wireName) => geminiModelInfo(wireName).capabilities,
    },
  };
}
