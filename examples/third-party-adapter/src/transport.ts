import { type AdapterError, AuthError, type CanonicalRequest } from '@yourtool/core';
import {
  type AdapterContext,
  parseSseJson,
  readSseEvents,
  type WireAttempt,
  type WireTransport,
} from '@yourtool/core/adapter';
import { ACME, type AcmeChunk, type AcmeCompletion, type AcmeRequestBody } from './codec.js';
import { errorFromResponse, toAcmeError } from './errors.js';

/** Where the API lives unless `base_url` says otherwise. */
export const ACME_DEFAULT_BASE_URL = 'https://api.acme.example/v1';

/**
 * The Acme adapter's transport: `POST /chat/completions` with `fetch` (no SDK), every request
 * with the attempt's signal, HTTP errors and transport failures mapped to `AdapterError`s.
 */
export class AcmeTransport implements WireTransport<AcmeRequestBody, AcmeCompletion, AcmeChunk> {
  readonly #context: AdapterContext;

  constructor(context: AdapterContext) {
    this.#context = context;
  }

  async send(body: AcmeRequestBody, attempt: WireAttempt): Promise<AcmeCompletion> {
    // the attempt's signal goes to fetch: cancel(), the caller's signal and the deadline all
    // close the HTTP request itself
    const response = await this.#post({ ...body, stream: false }, attempt);
    return (await response.json()) as AcmeCompletion;
  }

  async open(body: AcmeRequestBody, attempt: WireAttempt): Promise<AsyncIterable<AcmeChunk>> {
    const response = await this.#post({ ...body, stream: true }, attempt);
    if (!response.body) throw new SyntaxError('the streamed reply has no body');
    return chunks(response.body, attempt.signal);
  }

  toAdapterError(error: unknown, request: CanonicalRequest): AdapterError {
    return toAcmeError(error, { request_id: request.request_id, secrets: this.#secrets() });
  }

  /** Why no call can be made: no API key in the config or in `ACME_API_KEY`. */
  setupProblem(): string | null {
    return this.#apiKey()
      ? null
      : `${ACME}: no API key (set api_key, or ACME_API_KEY in the environment)`;
  }

  #apiKey(): string | undefined {
    return this.#context.config.api_key ?? process.env.ACME_API_KEY ?? undefined;
  }

  async #post(body: AcmeRequestBody, attempt: WireAttempt): Promise<Response> {
    const { config, runtime } = this.#context;
    const key = this.#apiKey();
    if (!key) throw new AuthError(this.setupProblem() ?? `${ACME}: no API key`, { provider: ACME });
    const base = (config.base_url ?? ACME_DEFAULT_BASE_URL).replace(/\/+$/, '');
    const fetchImpl = runtime.fetch ?? globalThis.fetch;
    const response = await fetchImpl(`${base}/chat/completions`, {
      method: 'POST',
      headers: {
        ...config.extra_headers,
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        accept: body.stream ? 'text/event-stream' : 'application/json',
      },
      body: JSON.stringify(body),
      signal: attempt.signal,
    });
    if (!response.ok) {
      throw await errorFromResponse(response, {
        request_id: attempt.request.request_id,
        secrets: this.#secrets(),
      });
    }
    return response;
  }

  #secrets(): Array<string | null | undefined> {
    const { config } = this.#context;
    return [config.api_key, process.env.ACME_API_KEY, ...Object.values(config.extra_headers)];
  }
}

/** The SSE body as parsed chunks, up to `data: [DONE]`, with core's reader. */
async function* chunks(
  body: ReadableStream<Uint8Array>,
  signal: AbortSignal,
): AsyncGenerator<AcmeChunk> {
  for await (const event of readSseEvents(body, { signal })) {
    if (event.data === '[DONE]') return;
    yield parseSseJson(event) as AcmeChunk;
  }
}
