import Anthropic from '@anthropic-ai/sdk';
import {
  type AdapterCapabilities,
  type AdapterConfigInput,
  type AdapterError,
  AuthError,
  type CallRunnerOptions,
  type CanonicalRequest,
  type Logger,
} from '@yourtool/core';
import {
  type ChunkMapper,
  type DecodedReply,
  redactError,
  redactSecrets,
  requestToolNames,
  WireAdapter,
  type WireAttempt,
  type WireBody,
  type WireCall,
} from '@yourtool/core/adapter';
import { anthropicRequestBody } from './codec/body.js';
import { toAnthropicAdapterError } from './codec/errors.js';
import {
  ANTHROPIC,
  type AnthropicParams,
  AnthropicWireMemory,
  toAnthropicParams,
} from './codec/request.js';
import { fromAnthropicMessage } from './codec/response.js';
import { createAnthropicStreamMapper } from './codec/stream.js';
import { anthropicStreamBody } from './codec/stream-body.js';
import { anthropicCredentialProblem } from './credentials.js';
import { claudeModelInfo } from './models.js';
import {
  AnthropicCallOptionsSchema,
  AnthropicConfigOptionsSchema,
  type AnthropicDefaults,
} from './options.js';

export type { AnthropicCallOptions, AnthropicConfigOptions } from './options.js';

/** A request body given as bytes: the SDK sends them as they are, with this type. */
const JSON_BODY = { 'content-type': 'application/json' } as const;

/** The model whose capabilities `adapter.capabilities` reports. */
export const DEFAULT_ANTHROPIC_MODEL = 'anthropic:claude-sonnet-4-6';

/** Construction options of {@link AnthropicAdapter} besides the config (core's, unchanged). */
export type AnthropicRuntimeOptions = CallRunnerOptions;

/** One Messages API stream event, as the SDK parses it. */
type AnthropicChunk = Anthropic.RawMessageStreamEvent;

/**
 * The Anthropic Messages API adapter, on the official `@anthropic-ai/sdk` (its own retries
 * off; core's bounded retry on). A `WireAdapter`: the request is encoded by the codec's
 * `toAnthropicParams`, sent through the SDK client, and the reply decoded by
 * `fromAnthropicMessage` (streamed: `createAnthropicStreamMapper`).
 *
 * ```ts
 * const claude = new AnthropicAdapter({ api_key: process.env.ANTHROPIC_API_KEY });
 * const reply = await claude.complete({ request_id: newRequestId(), model: 'anthropic:claude-sonnet-4-6', messages, max_output_tokens: 1024 });
 * ```
 */
export class AnthropicAdapter extends WireAdapter<
  AnthropicParams,
  Anthropic.Message,
  AnthropicChunk
> {
  /** Adapter name and provider key. */
  readonly name = ANTHROPIC;
  readonly #client: Anthropic;
  /** `config.options`, checked and parsed once. */
  readonly #defaults: AnthropicDefaults;
  /** What the codec remembers between this adapter's requests (decision 0165). */
  readonly #memory = new AnthropicWireMemory();

  /**
   * Creates an adapter. `api_key` defaults to the `ANTHROPIC_API_KEY` environment variable.
   * @throws AdapterOptionError for an unknown key or a wrong type in `config.options`.
   */
  constructor(config: AdapterConfigInput = {}, runtime: AnthropicRuntimeOptions = {}) {
    super('Anthropic', config, runtime);
    this.#defaults = this.parseOptions(AnthropicConfigOptionsSchema, ANTHROPIC);
    const version = this.#defaults.anthropicVersion;
    this.#client = new Anthropic({
      // unset values fall back to the SDK's environment variables
      // (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL)
      ...(this.config.api_key ? { apiKey: this.config.api_key } : {}),
      ...(this.config.base_url ? { baseURL: this.config.base_url } : {}),
      maxRetries: 0,
      timeout: this.config.timeout_seconds * 1000,
      defaultHeaders: {
        ...this.config.extra_headers,
        ...(version ? { 'anthropic-version': version } : {}),
      },
      openTelemetry: false,
      // The SDK's own warnings go to the adapter's logger (redacted), never to the console.
      logger: sdkLogger(this.logger, () => this.#secrets()),
      logLevel: 'warn',
      ...(runtime.fetch ? { fetch: runtime.fetch } : {}),
    });
  }

  /**
   * Sends one Messages API request through the SDK client. Not `messages.create`: it writes
   * deprecation notices (`claude-sonnet-4-5`, `thinking.type=enabled` on some models) straight
   * to `console.warn`, bypassing the configured logger; the client's own request pipeline
   * (headers, timeout, abort, status errors, SSE parsing) is the same.
   */
  #post<Reply>(params: Anthropic.MessageCreateParams, signal: AbortSignal) {
    // the body as JSON bytes, each remembered turn's written once per session (decision 0149)
    return this.#client.post<Reply>('/v1/messages', {
      body: anthropicRequestBody(params, this.#memory),
      headers: JSON_BODY,
      stream: params.stream === true,
      signal,
    });
  }

  /**
   * Why no call can authenticate as configured, or null: no `api_key` in the config, none of
   * `ANTHROPIC_API_KEY` / `ANTHROPIC_AUTH_TOKEN` in the environment, no `x-api-key` or
   * `Authorization` header configured, and no credential profile or federation the SDK's
   * default chain would find. The registry marks the adapter's models `not_configured` with it.
   */
  setupProblem(): string | null {
    return anthropicCredentialProblem(this.config);
  }

  /** Where calls go (telemetry's `server.address`): the SDK client's base URL. */
  protected override serverUrl(): string {
    return this.#client.baseURL;
  }

  /** What is redacted from errors and SDK log lines: the API key and custom header values. */
  #secrets(): Array<string | undefined> {
    return [
      this.config.api_key ?? process.env.ANTHROPIC_API_KEY,
      process.env.ANTHROPIC_AUTH_TOKEN,
      ...Object.values(this.config.extra_headers),
    ];
  }

  protected defaultModel(): string {
    return DEFAULT_ANTHROPIC_MODEL;
  }

  /** Claude models' capabilities by wire name (see `CLAUDE_MODELS`). */
  protected baseCapabilities(wireName: string): AdapterCapabilities {
    return claudeModelInfo(wireName).capabilities;
  }

  /**
   * The Messages API parameters of a call (without `stream`), with this call's options over the
   * configured ones. A call made with no credential set fails `auth` here, before any request.
   */
  protected encode({ request, logger, toolIdMap, options }: WireCall): AnthropicParams {
    const problem = this.setupProblem();
    if (problem)
      throw new AuthError(`anthropic: ${problem}`, { provider: ANTHROPIC, retryable: false });
    const wireName = this.wireName(request.model);
    const perCall = this.parseCallOptions(AnthropicCallOptionsSchema, options);
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
      model: { ...claudeModelInfo(wireName), capabilities: this.capabilitiesFor(request.model) },
    }).params;
  }

  /** A non-streaming Messages API call. */
  protected send(params: AnthropicParams, { signal }: WireAttempt): Promise<Anthropic.Message> {
    return this.#post({ ...params, stream: false }, signal);
  }

  /**
   * A streaming Messages API call: the SDK sends it and checks the status; core reads the SSE
   * body, a network read at a time (the SDK's per-event iterator layers cost more than the
   * adapter's whole mapping; decision 0147).
   */
  protected async open(
    params: AnthropicParams,
    { signal }: WireAttempt,
  ): Promise<WireBody<AnthropicChunk>> {
    const response = await this.#post({ ...params, stream: true }, signal).asResponse();
    return anthropicStreamBody(response);
  }

  /** A whole reply, decoded by the codec (served model, tool names read back as canonical). */
  protected decode(
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
  protected chunkMapper(
    _params: AnthropicParams,
    { request, toolIdMap, logger }: WireCall,
  ): ChunkMapper<AnthropicChunk> {
    return createAnthropicStreamMapper(toolIdMap, logger, request.model, requestToolNames(request));
  }

  /** The codec's error mapping, with the adapter's secrets redacted. */
  protected toAdapterError(error: unknown, request: CanonicalRequest): AdapterError {
    return toAnthropicAdapterError(error, request.request_id, this.#secrets());
  }
}

/** The SDK's `logger` option: each line to `logger` as `sdk_log`, secrets redacted. */
function sdkLogger(logger: Logger, secrets: () => ReadonlyArray<string | undefined>) {
  const write =
    (level: 'error' | 'warn' | 'info' | 'debug') =>
    (message: string, ...details: unknown[]): void => {
      const list = secrets();
      const entry: Record<string, unknown> = {
        event: 'sdk_log',
        adapter: ANTHROPIC,
        sdk_level: level,
        ...(details.length > 0 ? { details: details.map((d) => redactError(d, list)) } : {}),
      };
      const text = redactSecrets(String(message), list);
      (level === 'warn' ? logger.warn : (logger[level] ?? logger.warn)).call(logger, entry, text);
    };
  return { error: write('error'), warn: write('warn'), info: write('info'), debug: write('debug') };
}
