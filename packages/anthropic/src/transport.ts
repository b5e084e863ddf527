import Anthropic from '@anthropic-ai/sdk';
import type { AdapterError, CanonicalRequest, Logger } from '@yourtool/core';
import {
  type AdapterContext,
  redactError,
  redactSecrets,
  type WireAttempt,
  type WireBody,
  type WireTransport,
} from '@yourtool/core/adapter';
import { anthropicRequestBody } from './codec/body.js';
import { toAnthropicAdapterError } from './codec/errors.js';
import { ANTHROPIC, type AnthropicParams, type AnthropicWireMemory } from './codec/request.js';
import { anthropicStreamBody } from './codec/stream-body.js';
import { anthropicCredentialProblem } from './credentials.js';

/** One Messages API stream event, as the SDK parses it. */
export type AnthropicChunk = Anthropic.RawMessageStreamEvent;

/** A request body given as bytes: the SDK sends them as they are, with this type. */
const JSON_BODY = { 'content-type': 'application/json' } as const;

/**
 * The Anthropic adapter's transport: the official `@anthropic-ai/sdk` client (its own retries
 * off; core's bounded retry on), the Messages API calls, and the SDK's errors mapped.
 */
export class AnthropicTransport
  implements WireTransport<AnthropicParams, Anthropic.Message, AnthropicChunk>
{
  readonly #context: AdapterContext;
  readonly #client: Anthropic;
  readonly #memory: AnthropicWireMemory;

  /**
   * Builds the SDK client from the validated config; `version` is `options.anthropic_version`;
   * `memory` is the adapter's, which the body writer reads (decision 0165).
   */
  constructor(context: AdapterContext, version: string | undefined, memory: AnthropicWireMemory) {
    this.#context = context;
    this.#memory = memory;
    const { config, runtime } = context;
    this.#client = new Anthropic({
      // unset values fall back to the SDK's environment variables
      // (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL)
      ...(config.api_key ? { apiKey: config.api_key } : {}),
      ...(config.base_url ? { baseURL: config.base_url } : {}),
      maxRetries: 0,
      timeout: config.timeout_seconds * 1000,
      defaultHeaders: {
        ...config.extra_headers,
        ...(version ? { 'anthropic-version': version } : {}),
      },
      openTelemetry: false,
      // The SDK's own warnings go to the adapter's logger (redacted), never to the console.
      logger: sdkLogger(context.logger, () => this.#secrets()),
      logLevel: 'warn',
      ...(runtime.fetch ? { fetch: runtime.fetch } : {}),
    });
  }

  /** A non-streaming Messages API call. */
  send(params: AnthropicParams, { signal }: WireAttempt): Promise<Anthropic.Message> {
    return this.#post({ ...params, stream: false }, signal);
  }

  /**
   * A streaming Messages API call: the SDK sends it and checks the status; core reads the SSE
   * body, a network read at a time (the SDK's per-event iterator layers cost more than the
   * adapter's whole mapping; decision 0147).
   */
  async open(params: AnthropicParams, { signal }: WireAttempt): Promise<WireBody<AnthropicChunk>> {
    const response = await this.#post({ ...params, stream: true }, signal).asResponse();
    return anthropicStreamBody(response);
  }

  /** The codec's error mapping, with the adapter's secrets redacted. */
  toAdapterError(error: unknown, request: CanonicalRequest): AdapterError {
    return toAnthropicAdapterError(error, request.request_id, this.#secrets());
  }

  /** Where calls go (telemetry's `server.address`): the SDK client's base URL. */
  serverUrl(): string {
    return this.#client.baseURL;
  }

  /**
   * Why no call can authenticate as configured, or null: no `api_key` in the config, none of
   * `ANTHROPIC_API_KEY` / `ANTHROPIC_AUTH_TOKEN` in the environment, no `x-api-key` or
   * `Authorization` header configured, and no credential profile or federation the SDK's
   * default chain would find.
   */
  setupProblem(): string | null {
    return anthropicCredentialProblem(this.#context.config);
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

  /** What is redacted from errors and SDK log lines: the API key and custom header values. */
  #secrets(): Array<string | undefined> {
    const { config } = this.#context;
    return [
      config.api_key ?? process.env.ANTHROPIC_API_KEY,
      process.env.ANTHROPIC_AUTH_TOKEN,
      ...Object.values(config.extra_headers),
    ];
  }
}

/**
 * The SDK's `logger` option: each line to `logger` as `sdk_log` of `adapter`, secrets redacted.
 */
export function sdkLogger(
  logger: Logger,
  secrets: () => ReadonlyArray<string | undefined>,
  adapter: string = ANTHROPIC,
) {
  const write =
    (level: 'error' | 'warn' | 'info' | 'debug') =>
    (message: string, ...details: unknown[]): void => {
      const list = secrets();
      const entry: Record<string, unknown> = {
        event: 'sdk_log',
        adapter,
        sdk_level: level,
        ...(details.length > 0 ? { details: details.map((d) => redactError(d, list)) } : {}),
      };
      const text = redactSecrets(String(message), list);
      (level === 'warn' ? logger.warn : (logger[level] ?? logger.warn)).call(logger, entry, text);
    };
  return { error: write('error'), warn: write('warn'), info: write('info'), debug: write('debug') };
}
