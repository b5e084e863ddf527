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
  parseSseJson,
  readSseEvents,
  requestToolNames,
  WireAdapter,
  type WireAttempt,
  type WireCall,
} from '@yourtool/core/adapter';
import {
  ACME,
  type AcmeChunk,
  type AcmeCompletion,
  type AcmeRequestBody,
  createChunkMapper,
  decodeMessage,
  encodeRequest,
  stopReasonOf,
  usageOf,
} from './codec.js';
import { errorFromResponse, toAcmeError } from './errors.js';
import { acmeCapabilities } from './models.js';

/** Where the API lives unless `base_url` says otherwise. */
export const ACME_DEFAULT_BASE_URL = 'https://api.acme.example/v1';

/**
 * An adapter for the Acme chat API (Mistral-style `POST /chat/completions`, SSE streaming),
 * on `fetch` and core alone: no SDK.
 *
 * ```ts
 * const acme = new AcmeAdapter({ api_key: process.env.ACME_API_KEY });
 * const reply = await acme.complete({ request_id: newRequestId(), model: 'acme:small', messages, max_output_tokens: 512 });
 * ```
 */
export class AcmeAdapter extends WireAdapter<AcmeRequestBody, AcmeCompletion, AcmeChunk> {
  readonly name = ACME;

  constructor(config: AdapterConfigInput = {}, runtime: CallRunnerOptions = {}) {
    super(ACME, config, runtime);
  }

  protected defaultModel(): string {
    return 'acme:small';
  }

  protected baseCapabilities(wireName: string): AdapterCapabilities {
    return acmeCapabilities(wireName);
  }

  /** Why no call can be made: no API key in the config or in `ACME_API_KEY`. */
  setupProblem(): string | null {
    return this.#apiKey()
      ? null
      : `${ACME}: no API key (set api_key, or ACME_API_KEY in the environment)`;
  }

  protected encode(call: WireCall): AcmeRequestBody {
    return encodeRequest(call.request, {
      wireName: this.wireName(call.request.model),
      capabilities: this.capabilitiesFor(call.request.model),
      toolIdMap: call.toolIdMap,
      logger: call.logger,
    });
  }

  protected async send(body: AcmeRequestBody, attempt: WireAttempt): Promise<AcmeCompletion> {
    // the attempt's signal goes to fetch: cancel(), the caller's signal and the deadline all
    // close the HTTP request itself
    const response = await this.#post({ ...body, stream: false }, attempt);
    return (await response.json()) as AcmeCompletion;
  }

  protected async open(
    body: AcmeRequestBody,
    attempt: WireAttempt,
  ): Promise<AsyncIterable<AcmeChunk>> {
    const response = await this.#post({ ...body, stream: true }, attempt);
    if (!response.body) throw new SyntaxError('the streamed reply has no body');
    return chunks(response.body, attempt.signal);
  }

  protected decode(
    completion: AcmeCompletion,
    _body: AcmeRequestBody,
    call: WireCall,
  ): DecodedReply {
    const choice = completion.choices[0];
    if (!choice) throw new SyntaxError('the reply has no choices');
    return {
      content: decodeMessage(choice.message, call.toolIdMap, requestToolNames(call.request)),
      stop_reason: stopReasonOf(choice.finish_reason),
      usage: completion.usage ? usageOf(completion.usage) : null,
      provider_raw: { id: completion.id },
      served_model: completion.model ? `${call.modelProvider}:${completion.model}` : null,
    };
  }

  protected chunkMapper(_body: AcmeRequestBody, call: WireCall): ChunkMapper<AcmeChunk> {
    return createChunkMapper(call.toolIdMap, requestToolNames(call.request), call.modelProvider);
  }

  protected toAdapterError(error: unknown, request: CanonicalRequest): AdapterError {
    return toAcmeError(error, { request_id: request.request_id, secrets: this.#secrets() });
  }

  #apiKey(): string | undefined {
    return this.config.api_key ?? process.env.ACME_API_KEY ?? undefined;
  }

  async #post(body: AcmeRequestBody, attempt: WireAttempt): Promise<Response> {
    const key = this.#apiKey();
    if (!key) throw new AuthError(this.setupProblem() ?? `${ACME}: no API key`, { provider: ACME });
    const base = (this.config.base_url ?? ACME_DEFAULT_BASE_URL).replace(/\/+$/, '');
    const fetchImpl = this.runtime.fetch ?? globalThis.fetch;
    const response = await fetchImpl(`${base}/chat/completions`, {
      method: 'POST',
      headers: {
        ...this.config.extra_headers,
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
    return [
      this.config.api_key,
      process.env.ACME_API_KEY,
      ...Object.values(this.config.extra_headers),
    ];
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
