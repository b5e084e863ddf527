import {
  type Content,
  type GenerateContentParameters,
  type GenerateContentResponse,
  GoogleGenAI,
  type GoogleGenAIOptions,
} from '@google/genai';
import { type AdapterError, AuthError, type CanonicalRequest } from '@yourtool/core';
import type { AdapterContext, WireAttempt, WireBody, WireTransport } from '@yourtool/core/adapter';
import { toGoogleAdapterError } from './codec/errors.js';
import { GOOGLE } from './codec/request.js';
import type { GeminiResponseLike } from './codec/response.js';
import type { GeminiWireMemory } from './codec/wire-memory.js';
import { type BodyFetch, ContentsText } from './contents-text.js';
import { type GoogleDefaults, googleUsesVertex } from './options.js';
import { geminiStreamBody } from './stream/body.js';
import { type SentGeminiStream, sdkDefaultFetch, sendGeminiStream } from './stream/send.js';

/**
 * The Gemini adapter's transport: the official `@google/genai` client (built on first use, so a
 * missing key fails the call, not the import), `generateContent` and `generateContentStream`
 * against the Gemini API or Vertex AI, and the SDK's errors mapped.
 */
export class GoogleTransport
  implements WireTransport<GenerateContentParameters, GenerateContentResponse, GeminiResponseLike>
{
  readonly #context: AdapterContext;
  readonly #defaults: GoogleDefaults;
  readonly #memory: GeminiWireMemory | undefined;
  readonly #text = new ContentsText();
  #client: GoogleGenAI | undefined;

  /**
   * `defaults` are the adapter's checked `config.options`; `memory` the codec's, whose recorded
   * contents JSON is sent as it is (decision 0194).
   */
  constructor(context: AdapterContext, defaults: GoogleDefaults, memory?: GeminiWireMemory) {
    this.#context = context;
    this.#defaults = defaults;
    this.#memory = memory;
  }

  /**
   * A non-streaming `generateContent` call; contents the codec wrote as JSON go as that text
   * (the SDK converts and writes the rest of the request, see `ContentsText`).
   */
  send(
    params: GenerateContentParameters,
    { signal }: WireAttempt,
  ): Promise<GenerateContentResponse> {
    const sdk = this.#sdk();
    const sent = withSignal(params, signal);
    const json = this.#contentsJson(sdk, params);
    if (json === null) return sdk.models.generateContent(sent);
    return sdk.models.generateContent(this.#text.params(sent, json, this.#bodyFetch()));
  }

  /**
   * A streaming `generateContentStream` call: the SDK builds and sends it and checks the status;
   * core reads the SSE body a network read at a time, parsed as the SDK's stream parsed it,
   * continuation hops included (decision 0147; see `geminiStreamBody`).
   */
  async open(
    params: GenerateContentParameters,
    { signal }: WireAttempt,
  ): Promise<WireBody<GeminiResponseLike> | AsyncIterable<GeminiResponseLike>> {
    const sdk = this.#sdk();
    const json = this.#contentsJson(sdk, params);
    const fetch = json === null ? this.#fetch() : this.#text.fetch(json, this.#bodyFetch());
    const send = (continuationToken?: string) => {
      const sent = withSignal(params, signal, continuationToken);
      return sendGeminiStream(sdk, json === null ? sent : this.#text.placeholder(sent), fetch);
    };
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

  /** The codec's error mapping, with the adapter's secrets redacted. */
  toAdapterError(error: unknown, request: CanonicalRequest): AdapterError {
    return toGoogleAdapterError(error, request.request_id, this.#secrets());
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
  serverUrl(): string {
    const vertex = this.#usesVertex();
    const env = process.env[vertex ? 'GOOGLE_VERTEX_BASE_URL' : 'GOOGLE_GEMINI_BASE_URL'];
    const configured = this.#context.config.base_url ?? env;
    if (configured) return configured;
    if (!vertex) return 'https://generativelanguage.googleapis.com/';
    const location = this.#defaults.location ?? process.env.GOOGLE_CLOUD_LOCATION;
    return location && location !== 'global'
      ? `https://${location}-aiplatform.googleapis.com/`
      : 'https://aiplatform.googleapis.com/';
  }

  /**
   * The JSON the codec recorded for the call's contents (UTF-8), or null: none recorded, or Vertex AI,
   * whose converter writes parts differently (the SDK converts and writes those contents).
   */
  #contentsJson(sdk: GoogleGenAI, params: GenerateContentParameters): Uint8Array | null {
    const { contents } = params;
    if (!this.#memory || sdk.vertexai || !Array.isArray(contents)) return null;
    return this.#memory.contentsBytes(contents as Content[]);
  }

  /** The fetch requests go through: the runtime's, else the SDK's default (no undici timeouts). */
  #fetch(): typeof globalThis.fetch {
    return this.#context.runtime.fetch ?? sdkDefaultFetch;
  }

  /** The fetch, and whether it is the runtime's (which gets the body as text, as from the SDK). */
  #bodyFetch(): BodyFetch {
    const { fetch } = this.#context.runtime;
    return fetch ? { fetch, text: true } : { fetch: sdkDefaultFetch, text: false };
  }

  /** Whether the SDK will talk to Vertex AI (the option, else the SDK's environment variable). */
  #usesVertex(): boolean {
    return googleUsesVertex(this.#defaults);
  }

  /** The SDK client, built on first use so a missing key fails the call, not the import. */
  #sdk(): GoogleGenAI {
    if (this.#client) return this.#client;
    const problem = this.setupProblem();
    if (problem) throw new AuthError(`google: ${problem}`, { provider: GOOGLE, retryable: false });
    const { config, runtime } = this.#context;
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
        ...(config.base_url ? { baseUrl: config.base_url } : {}),
        headers: { ...config.extra_headers },
        ...(runtime.fetch ? { fetch: runtime.fetch } : {}),
      },
    };
    this.#client = new GoogleGenAI(sdkOptions);
    return this.#client;
  }

  /** The API key: the config's, else the environment's (blank values do not count). */
  #apiKey(): string | undefined {
    return [
      this.#context.config.api_key,
      process.env.GEMINI_API_KEY,
      process.env.GOOGLE_API_KEY,
    ].find((key): key is string => typeof key === 'string' && key.trim() !== '');
  }

  /** What is redacted from errors: the API keys and custom header values. */
  #secrets(): Array<string | undefined> {
    const { config } = this.#context;
    return [
      config.api_key ?? undefined,
      process.env.GEMINI_API_KEY,
      process.env.GOOGLE_API_KEY,
      ...Object.values(config.extra_headers),
    ];
  }
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
