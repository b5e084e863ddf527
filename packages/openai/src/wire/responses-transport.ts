import type { AdapterError, CanonicalRequest } from '@yourtool/core';
import type { WireAttempt, WireTransport } from '@yourtool/core/adapter';
import type OpenAI from 'openai';
import { toOpenAIAdapterError } from '../codec/errors.js';
import { OPENAI } from '../codec/request.js';
import { openAIStreamBody } from '../codec/stream-body.js';
import { responsesRequestBytes } from '../responses/body.js';
import type { OpenAIResponsesEncoding, OpenAIResponsesParams } from '../responses/request.js';
import type { OpenAIResponsesStreamEvent } from '../responses/stream.js';
import type { OpenAIResponsesWireMemory } from '../responses/wire-memory.js';
import type { LazyOpenAIClient } from '../sdk-client.js';

/** A request body given as UTF-8 JSON bytes: the SDK sends it as it is, with this type. */
const JSON_BODY = { 'content-type': 'application/json' } as const;

/**
 * The transport part of the OpenAI Responses adapter, on the official `openai` SDK (its own
 * retries off; core's bounded retry on): `POST /responses` with and without `stream`, and the
 * SDK's errors mapped. With the adapter's wire memory the body is written here (decision 0193)
 * and sent through the SDK client's `post`; without, by `responses.create`.
 */
export class OpenAIResponsesTransport
  implements
    WireTransport<OpenAIResponsesEncoding, OpenAI.Responses.Response, OpenAIResponsesStreamEvent>
{
  readonly #client: LazyOpenAIClient;
  readonly #headerSecrets: string[];
  readonly #memory: OpenAIResponsesWireMemory | undefined;

  /**
   * `headerSecrets` are the configured `extra_headers` values, redacted from errors; `memory`
   * is the wire memory the adapter's codec encodes with (its remembered JSON is copied).
   */
  constructor(
    client: LazyOpenAIClient,
    headerSecrets: string[],
    memory?: OpenAIResponsesWireMemory,
  ) {
    this.#client = client;
    this.#headerSecrets = headerSecrets;
    this.#memory = memory;
  }

  /** A non-streaming `POST /responses`. */
  send(
    encoding: OpenAIResponsesEncoding,
    attempt: WireAttempt,
  ): Promise<OpenAI.Responses.Response> {
    const body = { ...wireParams(encoding.params), stream: false as const };
    const written = this.#written<OpenAI.Responses.Response>(body, false, attempt.signal);
    if (written) return written;
    return this.#client.get().responses.create(body, { signal: attempt.signal });
  }

  /**
   * A streaming `responses.create`: the SDK sends it and checks the status; core reads the SSE
   * body a network read at a time (decision 0147).
   */
  async open(encoding: OpenAIResponsesEncoding, attempt: WireAttempt) {
    const body = { ...wireParams(encoding.params), stream: true as const };
    const response = await (
      this.#written(body, true, attempt.signal) ??
      this.#client.get().responses.create(body, { signal: attempt.signal })
    ).asResponse();
    return openAIStreamBody<OpenAIResponsesStreamEvent>(response);
  }

  /**
   * The request sent with the body written here (decision 0193): the SDK client's own request
   * pipeline (headers, auth, timeout, abort, status errors) with a UTF-8 JSON body it sends as
   * it is. Null when the adapter keeps no wire memory.
   */
  #written<Reply>(body: Record<string, unknown>, stream: boolean, signal: AbortSignal) {
    if (this.#memory === undefined) return null;
    return this.#client.get().post<Reply>('/responses', {
      body: responsesRequestBytes(body, this.#memory),
      headers: JSON_BODY,
      stream,
      signal,
    });
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
