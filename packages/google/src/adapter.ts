import {
  type GenerateContentParameters,
  type GenerateContentResponse,
  GoogleGenAI,
  type GoogleGenAIOptions,
  type SafetySetting,
} from '@google/genai';
import { type AdapterCapabilities, type AdapterConfigInput, type CallRunnerOptions, AuthError, type CallOptions, type CanonicalRequest, type CanonicalRequestInput, type CanonicalResponse, type Logger, type StreamEvent, ToolIdMap } from '@yourtool/core';
import {
  AdapterBase,
  requestToolNames,
  runCompleteCall,
  runStreamCall,
} from '@yourtool/core/adapter';
import { toGoogleAdapterError } from './codec/errors.js';
import {
  GOOGLE,
  type GoogleRequestOptions,
  type GoogleThinkingOption,
  toGeminiRequest,
} from './codec/request.js';
import { fromGeminiResponse } from './codec/response.js';
import { createGeminiStreamMapper } from './codec/stream.js';
import { geminiModelInfo } from './models.js';

/** The model whose capabilities `adapter.capabilities` reports. */
export const DEFAULT_GOOGLE_MODEL = 'google:gemini-2.5-flash';

/**
 * Google options read from `AdapterConfig.options` (defaults for every call). With `vertexai:
 * true` the same SDK talks to Vertex AI: `project` and `location` (or `GOOGLE_CLOUD_PROJECT` /
 * `GOOGLE_CLOUD_LOCATION`) select it and Google Cloud credentials authenticate (Application
 * Default Credentials), or an express-mode API key in `api_key`.
 */
export interface GoogleConfigOptions {
  /** Use Vertex AI instead of the Gemini API. Default false. */
  vertexai?: boolean;
  /** Google Cloud project (Vertex AI). */
  project?: string;
  /** Google Cloud location, e.g. `us-central1` or `global` (Vertex AI). */
  location?: string;
  /** API version the SDK calls (`v1beta` by default for the Gemini API). */
  api_version?: string;
  /** Default thinking (per call: `providerOptions.google.thinking`). */
  thinking?: GoogleThinkingOption;
  /** Default safety settings, sent as they are. */
  safety_settings?: SafetySetting[];
}

/** Construction options of {@link GoogleAdapter} besides the config (core's, unchanged). */
export type GoogleRuntimeOptions = CallRunnerOptions;

/** Per-call options of the adapter (`providerOptions.google`). */
export interface GoogleCallOptions {
  /** Thinking for this call (overrides `options.thinking`). */
  thinking?: GoogleThinkingOption;
  /** Safety settings for this call (override `options.safety_settings`). */
  safetySettings?: SafetySetting[];
}

/**
 * The Gemini adapter, on the official `@google/genai` SDK (its own retries off; core's bounded
 * retry on): `generateContent` and `generateContentStream`, against the Gemini API with an API
 * key or Vertex AI through the same SDK's options.
 *
 * ```ts
 * const gemini = new GoogleAdapter({ api_key: process.env.GEMINI_API_KEY });
 * const reply = await gemini.complete({ request_id: newRequestId(), model: 'google:gemini-2.5-flash', messages, max_output_tokens: 1024 });
 * ```
 */
export class GoogleAdapter extends AdapterBase {
  /** Adapter name and provider key. */
  readonly name = GOOGLE;
  #client: GoogleGenAI | undefined;

  /**
   * Creates an adapter. `api_key` defaults to `GEMINI_API_KEY` (or `GOOGLE_API_KEY`); `base_url`
   * to the SDK's endpoint (or `GOOGLE_GEMINI_BASE_URL`). The SDK client is built on first use.
   */
  constructor(config: AdapterConfigInput = {}, runtime: GoogleRuntimeOptions = {}) {
    super('Google', config, runtime);
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

  /** Whether the SDK will talk to Vertex AI (the option, else the SDK's environment variable). */
  #usesVertex(): boolean {
    const option = this.configOptions<GoogleConfigOptions>().vertexai;
    if (option !== undefined) return option;
    return process.env.GOOGLE_GENAI_USE_VERTEXAI?.trim().toLowerCase() === 'true';
  }

  /** The SDK client, built on first use so a missing key fails the call, not the import. */
  #sdk(): GoogleGenAI {
    if (this.#client) return this.#client;
    const problem = this.setupProblem();
    if (problem) throw new AuthError(`google: ${problem}`, { provider: GOOGLE, retryable: false });
    const options = this.configOptions<GoogleConfigOptions>();
    const apiKey = this.#apiKey();
    const sdkOptions: GoogleGenAIOptions = {
      ...(apiKey ? { apiKey } : {}),
      // said explicitly, so the SDK picks the backend setupProblem() checked
      vertexai: this.#usesVertex(),
      ...(options.project ? { project: options.project } : {}),
      ...(options.location ? { location: options.location } : {}),
      ...(options.api_version ? { apiVersion: options.api_version } : {}),
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

  /** A non-streaming `generateContent` call. */
  complete(request: CanonicalRequestInput, options: CallOptions = {}): Promise<CanonicalResponse> {
    return runCompleteCall(
      this.#setup(),
      request,
      options,
      async ({ request: req, signal, logger }) => {
        const toolIdMap = options.toolIdMap ?? new ToolIdMap();
        const params = this.#encode(req, toolIdMap, logger, options);
        const started = Date.now();
        const response: GenerateContentResponse = await this.#sdk().models.generateContent(
          withSignal(params, signal),
        );
        const decoded = fromGeminiResponse(response, toolIdMap, {
          stopSequencesSent: req.stop_sequences.length > 0,
          logger,
          request_id: req.request_id,
          model: req.model,
          toolNames: requestToolNames(req),
        });
        return {
          request_id: req.request_id,
          model: req.model,
          provider: GOOGLE,
          content: decoded.content,
          stop_reason: decoded.stop_reason,
          usage: decoded.usage,
          latency_ms: Date.now() - started,
          provider_raw: decoded.provider_raw,
          ...(decoded.served_model ? { served_model: decoded.served_model } : {}),
        };
      },
    );
  }

  /** A streaming `generateContentStream` call, as canonical events. */
  stream(request: CanonicalRequestInput, options: CallOptions = {}): AsyncIterable<StreamEvent> {
    const toolIdMap = options.toolIdMap ?? new ToolIdMap();
    let map: ReturnType<typeof createGeminiStreamMapper> | undefined;
    return runStreamCall<GenerateContentResponse>(this.#setup(), request, options, {
      open: async ({ request: req, signal, logger }) => {
        const params = this.#encode(req, toolIdMap, logger, options);
        map = createGeminiStreamMapper(toolIdMap, {
          stopSequencesSent: req.stop_sequences.length > 0,
          logger,
          request_id: req.request_id,
          model: req.model,
          toolNames: requestToolNames(req),
        });
        return this.#sdk().models.generateContentStream(withSignal(params, signal));
      },
      onChunk: (chunk, builder) => (map ? map(chunk, builder) : []),
    });
  }

  #encode(
    request: CanonicalRequest,
    toolIdMap: ToolIdMap,
    logger: Logger,
    options: CallOptions,
  ): GenerateContentParameters {
    const wireName = this.checkRequest(request);
    const defaults = this.configOptions<GoogleConfigOptions>();
    const perCall = this.callOptions<GoogleCallOptions>(options);
    const thinking = perCall.thinking ?? defaults.thinking;
    const safetySettings = perCall.safetySettings ?? defaults.safety_settings;
    const requestOptions: GoogleRequestOptions = {
      wireName,
      ...(thinking !== undefined ? { thinking } : {}),
      ...(safetySettings ? { safetySettings } : {}),
    };
    return toGeminiRequest(request, {
      toolIdMap,
      logger,
      options: requestOptions,
      model: { ...geminiModelInfo(wireName), capabilities: this.capabilitiesFor(request.model) },
    }).params;
  }

  #setup() {
    return this.callSetup((error, request) =>
      toGoogleAdapterError(error, request.request_id, this.#secrets()),
    );
  }
}

function withSignal(
  params: GenerateContentParameters,
  signal: AbortSignal,
): GenerateContentParameters {
  return { ...params, config: { ...params.config, abortSignal: signal } };
}
