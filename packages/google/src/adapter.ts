import {
  type GenerateContentParameters,
  type GenerateContentResponse,
  GoogleGenAI,
  type GoogleGenAIOptions,
} from '@google/genai';
import {
  type AdapterCapabilities,
  type AdapterConfigInput,
  type AdapterError,
  AuthError,
  type CallRunnerOptions,
  type CanonicalRequest,
} from '@yourtool/core';
import {
  type ChunkMapper,
  type DecodedReply,
  HistoryMemo,
  requestToolNames,
  WireAdapter,
  type WireAttempt,
  type WireBody,
  type WireCall,
} from '@yourtool/core/adapter';
import { toGoogleAdapterError } from './codec/errors.js';
import { GOOGLE, toGeminiRequest } from './codec/request.js';
import {
  fromGeminiResponse,
  type GeminiDecodeOptions,
  type GeminiResponseLike,
} from './codec/response.js';
import { createGeminiStreamMapper } from './codec/stream.js';
import { geminiModelInfo } from './models.js';
import {
  GoogleCallOptionsSchema,
  GoogleConfigOptionsSchema,
  type GoogleDefaults,
} from './options.js';
import { geminiStreamBody } from './stream/body.js';
import { type SentGeminiStream, sdkDefaultFetch, sendGeminiStream } from './stream/send.js';

export type { GoogleCallOptions, GoogleConfigOptions } from './options.js';

/** The model whose capabilities `adapter.capabilities` reports. */
export const DEFAULT_GOOGLE_MODEL = 'google:gemini-2.5-flash';

/** Construction options of {@link GoogleAdapter} besides the config (core's, unchanged). */
export type GoogleRuntimeOptions = CallRunnerOptions;

/**
 * The Gemini adapter, on the official `@google/genai` SDK (its own retries off; core's bounded
 * retry on): `generateContent` and `generateContentStream`, against the Gemini API with an API
 * key or Vertex AI through the same SDK's options. A `WireAdapter`: the request is encoded by
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
  /** Adapter name and provider key. */
  readonly name = GOOGLE;
  /** `config.options`, checked and parsed once. */
  readonly #defaults: GoogleDefaults;
  /** What `prepareHistory` remembers between this adapter's requests (decision 0165). */
  readonly #historyMemo = new HistoryMemo();
  #client: GoogleGenAI | undefined;

  /**
   * Creates an adapter. `api_key` defaults to `GEMINI_API_KEY` (or `GOOGLE_API_KEY`); `base_url`
   * to the SDK's endpoint (or `GOOGLE_GEMINI_BASE_URL`). The SDK client is built on first use.
   * @throws AdapterOptionError for an unknown key or a wrong type in `config.options`
   *   (`vertexai: "false"` is one: a string is not a boolean).
   */
  constructor(config: AdapterConfigInput = {}, runtime: GoogleRuntimeOptions = {}) {
    super('Google', config, runtime);
    this.#defaults = this.parseOptions(GoogleConfigOptionsSchema, GOOGLE);
  }

  /**
   * Why no call can authenticate as configured, or null. The Gemini API needs an API key:
   * `api_key` in the config, else `GEMINI_API_KEY` or `GOOGLE_API_KEY` in the environment. Vertex
   * AI (`options.vertexai: true`, or `GOOGLE_GENAI_USE_VERTEXAI=true` when the option is unset)
   * needs none here: Google Cloud's Application Default Credentials authenticate it, and those
   * cannot be checked without a network call. The registry marks the adapter's models
   * `not_configured` with the reason; a call made anyway fails with `AuthError` saying the same.
   */
  setupProblem(): string | null {
    if (this.#usesVertex() || this.#apiKey()) return null;
    return 'no API key: set api_key in the adapter config, or GEMINI_API_KEY (or GOOGLE_API_KEY) in the environment, or use Vertex AI (options.vertexai with project and location)';
  }

  /**
   * Where calls go (telemetry's `server.address`), as the SDK picks it: `base_url`, else the
   * SDK's environment variable, else the Gemini API's host or Vertex AI's (regional) one.
   */
  protected override serverUrl(): string {
    const vertex = this.#usesVertex();
    const env = process.env[vertex ? 'GOOGLE_VERTEX_BASE_URL' : 'GOOGLE_GEMINI_BASE_URL'];
    const configured = this.config.base_url ?? env;
    if (configured) return configured;
    if (!vertex) return 'https://generativelanguage.googleapis.com/';
    const location = this.#defaults.location ?? process.env.GOOGLE_CLOUD_LOCATION;
    return location && location !== 'global'
      ? `https://${location}-aiplatform.googleapis.com/`
      : 'https://aiplatform.googleapis.com/';
  }

  /** Whether the SDK will talk to Vertex AI (the option, else the SDK's environment variable). */
  #usesVertex(): boolean {
    const option = this.#defaults.vertexai;
    if (option !== undefined) return option;
    return process.env.GOOGLE_GENAI_USE_VERTEXAI?.trim().toLowerCase() === 'true';
  }

  /** The SDK client, built on first use so a missing key fails the call, not the import. */
  #sdk(): GoogleGenAI {
    if (this.#client) return this.#client;
    const problem = this.setupProblem();
    if (problem) throw new AuthError(`google: ${problem}`, { provider: GOOGLE, retryable: false });
    const { project, location, apiVersion } = this.#defaults;
    const apiKey = this.#apiKey();
    const sdkOptions: GoogleGenAIOptions = {
      ...(apiKey ? { apiKey } : {}),
      // said explicitly, so the SDK picks the backend setupProblem() checked
      vertexai: this.#usesVertex(),
      ...(project ? { project } : {}),
      ...(location ? { location } : {}),
      ...(apiVersion ? { apiVersion } : {}),
      httpOptions: {
        ...(this.config.base_url ? { baseUrl: this.config.base_url } : {}),
        headers: { ...this.config.extra_headers },
        ...(this.runtime.fetch ? { fetch: this.runtime.fetch } : {}),
      },
    };
    this.#client = new GoogleGenAI(sdkOptions);
    return this.#client;
  }

  /** The API key: the config's, else the environment's (blank values do not count). */
  #apiKey(): string | undefined {
    return [this.config.api_key, process.env.GEMINI_API_KEY, process.env.GOOGLE_API_KEY].find(
      (key): key is string => typeof key === 'string' && key.trim() !== '',
    );
  }

  /** What is redacted from errors: the API keys and custom header values. */
  #secrets(): Array<string | undefined> {
    return [
      this.config.api_key ?? undefined,
      process.env.GEMINI_API_KEY,
      process.env.GOOGLE_API_KEY,
      ...Object.values(this.config.extra_headers),
    ];
  }

  protected defaultModel(): string {
    return DEFAULT_GOOGLE_MODEL;
  }

  /** Gemini models' capabilities by wire name (see `GEMINI_MODELS`). */
  protected baseCapabilities(wireName: string): AdapterCapabilities {
    return geminiModelInfo(wireName).capabilities;
  }

  /** The `generateContent` parameters of a call, with this call's options over the configured ones. */
  protected encode({ request, logger, toolIdMap, options }: WireCall): GenerateContentParameters {
    const wireName = this.wireName(request.model);
    const perCall = this.parseCallOptions(GoogleCallOptionsSchema, options);
    const thinking = perCall.thinking ?? this.#defaults.thinking;
    const safetySettings = perCall.safetySettings ?? this.#defaults.safetySettings;
    return toGeminiRequest(request, {
      toolIdMap,
      logger,
      historyMemo: this.#historyMemo,
      options: {
        wireName,
        ...(thinking !== undefined ? { thinking } : {}),
        ...(safetySettings ? { safetySettings } : {}),
      },
      model: { ...geminiModelInfo(wireName), capabilities: this.capabilitiesFor(request.model) },
    }).params;
  }

  /** A non-streaming `generateContent` call. */
  protected send(
    params: GenerateContentParameters,
    { signal }: WireAttempt,
  ): Promise<GenerateContentResponse> {
    return this.#sdk().models.generateContent(withSignal(params, signal));
  }

  /**
   * A streaming `generateContentStream` call: the SDK builds and sends it and checks the status;
   * core reads the SSE body a network read at a time, parsed as the SDK's stream parsed it,
   * continuation hops included (decision 0147; see `geminiStreamBody`).
   */
  protected async open(
    params: GenerateContentParameters,
    { signal }: WireAttempt,
  ): Promise<WireBody<GeminiResponseLike> | AsyncIterable<GeminiResponseLike>> {
    const sdk = this.#sdk();
    const fetch = this.runtime.fetch ?? sdkDefaultFetch;
    const send = (continuationToken?: string) =>
      sendGeminiStream(sdk, withSignal(params, signal, continuationToken), fetch);
    const first = await send();
    // an SDK that did not send through the fetch it was given: its own stream, as before
    if ('stream' in first) return first.stream;
    return geminiStreamBody(first.response, {
      resend: (continuationToken) => send(continuationToken).then(responseOf),
      vertex: sdk.vertexai,
      automaticContinuation: params.config?.automaticContinuation !== false,
      signal,
    });
  }

  /** A whole reply, decoded by the codec's reply assembler (the one streams go through). */
  protected decode(
    response: GenerateContentResponse,
    _params: GenerateContentParameters,
    call: WireCall,
  ): DecodedReply {
    return fromGeminiResponse(response, call.toolIdMap, decodeOptions(call));
  }

  /** The codec's stream mapper, one per stream. */
  protected chunkMapper(
    _params: GenerateContentParameters,
    call: WireCall,
  ): ChunkMapper<GeminiResponseLike> {
    return createGeminiStreamMapper(call.toolIdMap, decodeOptions(call));
  }

  /** The codec's error mapping, with the adapter's secrets redacted. */
  protected toAdapterError(error: unknown, request: CanonicalRequest): AdapterError {
    return toGoogleAdapterError(error, request.request_id, this.#secrets());
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

/** A continuation hop's response (the first hop's was one, so every hop's is). */
function responseOf(sent: SentGeminiStream): Response {
  if ('stream' in sent) throw new Error('google: the SDK did not send through the given fetch');
  return sent.response;
}

/** The call's parameters with the attempt's signal (and, resuming a stream, where from). */
function withSignal(
  params: GenerateContentParameters,
  signal: AbortSignal,
  continuationToken?: string,
): GenerateContentParameters {
  return {
    ...params,
    config: {
      ...params.config,
      abortSignal: signal,
      ...(continuationToken ? { continuationToken } : {}),
    },
  };
}
