import Anthropic from '@anthropic-ai/sdk';
import { type AdapterCapabilities, type AdapterConfigInput, type CallRunnerOptions, AuthError, type CallOptions, type CanonicalRequest, type CanonicalRequestInput, type CanonicalResponse, type Logger, type StreamEvent, ToolIdMap } from '@yourtool/core';
import {
  AdapterBase,
  redactError,
  redactSecrets,
  requestToolNames,
  runCompleteCall,
  runStreamCall,
} from '@yourtool/core/adapter';
import { toAnthropicAdapterError } from './codec/errors.js';
import {
  ANTHROPIC,
  type AnthropicRequestOptions,
  type AnthropicThinkingOption,
  toAnthropicParams,
} from './codec/request.js';
import { fromAnthropicMessage } from './codec/response.js';
import { createAnthropicStreamMapper } from './codec/stream.js';
import { anthropicCredentialProblem } from './credentials.js';
import { claudeModelInfo } from './models.js';

/** The model whose capabilities `adapter.capabilities` reports. */
export const DEFAULT_ANTHROPIC_MODEL = 'anthropic:claude-sonnet-4-6';

/** Anthropic options read from `AdapterConfig.options` (defaults for every call). */
export interface AnthropicConfigOptions {
  /** Default extended thinking (per call: `providerOptions.anthropic.thinking`). */
  thinking?: AnthropicThinkingOption;
  /** Cache breakpoints on the system prompt and tools. Default true. */
  prompt_caching?: boolean;
  /** `anthropic-version` header; see `AnthropicRequestOptions.apiVersion`. */
  anthropic_version?: string;
}

/** Construction options of {@link AnthropicAdapter} besides the config (core's, unchanged). */
export type AnthropicRuntimeOptions = CallRunnerOptions;

/**
 * The Anthropic Messages API adapter, on the official `@anthropic-ai/sdk` (its own retries
 * off; core's bounded retry on).
 *
 * ```ts
 * const claude = new AnthropicAdapter({ api_key: process.env.ANTHROPIC_API_KEY });
 * const reply = await claude.complete({ request_id: newRequestId(), model: 'anthropic:claude-sonnet-4-6', messages, max_output_tokens: 1024 });
 * ```
 */
export class AnthropicAdapter extends AdapterBase {
  /** Adapter name and provider key. */
  readonly name = ANTHROPIC;
  readonly #client: Anthropic;

  /** Creates an adapter. `api_key` defaults to the `ANTHROPIC_API_KEY` environment variable. */
  constructor(config: AdapterConfigInput = {}, runtime: AnthropicRuntimeOptions = {}) {
    super('Anthropic', config, runtime);
    const options = this.configOptions<AnthropicConfigOptions>();
    this.#client = new Anthropic({
      // unset values fall back to the SDK's environment variables
      // (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL)
      ...(this.config.api_key ? { apiKey: this.config.api_key } : {}),
      ...(this.config.base_url ? { baseURL: this.config.base_url } : {}),
      maxRetries: 0,
      timeout: this.config.timeout_seconds * 1000,
      defaultHeaders: {
        ...this.config.extra_headers,
        ...(options.anthropic_version ? { 'anthropic-version': options.anthropic_version } : {}),
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
  #send(
    params: Anthropic.MessageCreateParamsNonStreaming,
    signal: AbortSignal,
  ): Promise<Anthropic.Message>;
  #send(
    params: Anthropic.MessageCreateParamsStreaming,
    signal: AbortSignal,
  ): Promise<AsyncIterable<Anthropic.RawMessageStreamEvent>>;
  #send(
    params: Anthropic.MessageCreateParams,
    signal: AbortSignal,
  ): Promise<Anthropic.Message | AsyncIterable<Anthropic.RawMessageStreamEvent>> {
    return this.#client.post<Anthropic.Message | AsyncIterable<Anthropic.RawMessageStreamEvent>>(
      '/v1/messages',
      { body: params, stream: params.stream === true, signal },
    );
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

  /** Fails a call at once, as `auth`, when {@link setupProblem} says no credential is set. */
  #checkCredentials(): void {
    const problem = this.setupProblem();
    if (problem)
      throw new AuthError(`anthropic: ${problem}`, { provider: ANTHROPIC, retryable: false });
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

  /** A non-streaming Messages API call. */
  complete(request: CanonicalRequestInput, options: CallOptions = {}): Promise<CanonicalResponse> {
    return runCompleteCall(
      this.#setup(),
      request,
      options,
      async ({ request: req, signal, logger }) => {
        const toolIdMap = options.toolIdMap ?? new ToolIdMap();
        this.#checkCredentials();
        const { params } = this.#encode(req, toolIdMap, logger, options);
        const started = Date.now();
        const message = await this.#send({ ...params, stream: false }, signal);
        const decoded = fromAnthropicMessage(
          message,
          toolIdMap,
          logger,
          req.model,
          requestToolNames(req),
        );
        return {
          request_id: req.request_id,
          model: req.model,
          provider: ANTHROPIC,
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

  /** A streaming Messages API call, as canonical events. */
  stream(request: CanonicalRequestInput, options: CallOptions = {}): AsyncIterable<StreamEvent> {
    const toolIdMap = options.toolIdMap ?? new ToolIdMap();
    let map: ReturnType<typeof createAnthropicStreamMapper> | undefined;
    return runStreamCall<Anthropic.RawMessageStreamEvent>(this.#setup(), request, options, {
      open: async ({ request: req, signal, logger }) => {
        this.#checkCredentials();
        const { params } = this.#encode(req, toolIdMap, logger, options);
        map = createAnthropicStreamMapper(toolIdMap, logger, req.model, requestToolNames(req));
        return this.#send({ ...params, stream: true as const }, signal);
      },
      onChunk: (chunk, builder) => (map ? map(chunk, builder) : []),
    });
  }

  #encode(request: CanonicalRequest, toolIdMap: ToolIdMap, logger: Logger, options: CallOptions) {
    const wireName = this.checkRequest(request);
    const defaults = this.configOptions<AnthropicConfigOptions>();
    const perCall = this.callOptions<{
      thinking?: AnthropicThinkingOption;
      promptCaching?: boolean;
    }>(options);
    const requestOptions: AnthropicRequestOptions = {
      wireName,
      ...(defaults.anthropic_version ? { apiVersion: defaults.anthropic_version } : {}),
      promptCaching: perCall.promptCaching ?? defaults.prompt_caching ?? true,
      ...((perCall.thinking ?? defaults.thinking)
        ? { thinking: perCall.thinking ?? defaults.thinking }
        : {}),
    };
    return toAnthropicParams(request, {
      toolIdMap,
      logger,
      options: requestOptions,
      model: { ...claudeModelInfo(wireName), capabilities: this.capabilitiesFor(request.model) },
    });
  }

  #setup() {
    return this.callSetup((error, request) =>
      toAnthropicAdapterError(error, request.request_id, this.#secrets()),
    );
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
