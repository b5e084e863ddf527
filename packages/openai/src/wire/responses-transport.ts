import type { AdapterError, CanonicalRequest } from '@yourtool/core';
import type { WireAttempt, WireTransport } from '@yourtool/core/adapter';
import type OpenAI from 'openai';
import { toOpenAIAdapterError } from '../codec/errors.js';
import { OPENAI } from '../codec/request.js';
import { openAIStreamBody } from '../codec/stream-body.js';
import type { OpenAIResponsesEncoding, OpenAIResponsesParams } from '../responses/request.js';
import type { OpenAIResponsesStreamEvent } from '../responses/stream.js';
import type { LazyOpenAIClient } from '../sdk-client.js';

/**
 * The transport part of the OpenAI Responses adapter, on the official `openai` SDK (its own
 * retries off; core's bounded retry on): `responses.create` with and without `stream`, and the
 * SDK's errors mapped.
 */
export class OpenAIResponsesTransport
  implements
    WireTransport<OpenAIResponsesEncoding, OpenAI.Responses.Response, OpenAIResponsesStreamEvent>
{
  readonly #client: LazyOpenAIClient;
  readonly #headerSecrets: string[];

  /** `headerSecrets` are the configured `extra_headers` values, redacted from errors. */
  constructor(client: LazyOpenAIClient, headerSecrets: string[]) {
    this.#client = client;
    this.#headerSecrets = headerSecrets;
  }

  /** A non-streaming `responses.create`. */
  send(encoding: OpenAIResponsesEncoding, attempt: WireAttempt) {
    return this.#client
      .get()
      .responses.create(
        { ...wireParams(encoding.params), stream: false },
        { signal: attempt.signal },
      );
  }

  /**
   * A streaming `responses.create`: the SDK sends it and checks the status; core reads the SSE
   * body a network read at a time (decision 0147).
   */
  async open(encoding: OpenAIResponsesEncoding, attempt: WireAttempt) {
    const response = await this.#client
      .get()
      .responses.create(
        { ...wireParams(encoding.params), stream: true as const },
        { signal: attempt.signal },
      )
      .asResponse();
    return openAIStreamBody<OpenAIResponsesStreamEvent>(response);
  }

  /** The SDK's errors as `AdapterError`s, secrets redacted. */
  toAdapterError(error: unknown, request: CanonicalRequest): AdapterError {
    return toOpenAIAdapterError(error, request.request_id, {
      provider: OPENAI,
      apiKey: this.#client.apiKey(),
      secrets: this.#headerSecrets,
    });
  }

  /**
   * Why no call can be made as configured: no API key in the config or `OPENAI_API_KEY` (named,
   * never quoted). `null` when ready.
   */
  setupProblem(): string | null {
    return this.#client.setupProblem();
  }

  /** Where calls go (telemetry's `server.address`): the client's base URL. */
  serverUrl(): string | undefined {
    return this.#client.baseUrl();
  }
}

/**
 * The encoded parameters as the SDK's type: the adapter's input items are a subset of what the
 * API takes, typed without the server ids the SDK's output types require.
 */
function wireParams(
  params: OpenAIResponsesParams,
): Omit<OpenAI.Responses.ResponseCreateParamsNonStreaming, 'stream'> {
  return params as unknown as Omit<OpenAI.Responses.ResponseCreateParamsNonStreaming, 'stream'>;
}
