import { type AdapterCapabilities, type AdapterConfigInput, type CallRunnerOptions, AuthError, type CallOptions, type CanonicalRequestInput, type CanonicalResponse, type StreamEvent, ToolIdMap } from '@yourtool/core';
import {
  AdapterBase,
  parseSseJson,
  readSseEvents,
  runCompleteCall,
  runStreamCall,
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
export class AcmeAdapter extends AdapterBase {
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

  complete(request: CanonicalRequestInput, options: CallOptions = {}): Promise<CanonicalResponse> {
    const toolIdMap = options.toolIdMap ?? new ToolIdMap();
    return runCompleteCall(
      this.#setup(),
      request,
      options,
      async ({ request: req, signal, logger }) => {
        const wireName = this.checkRequest(req);
        const body = encodeRequest(
          { ...req, stream: false },
          { wireName, capabilities: this.capabilitiesFor(req.model), toolIdMap, logger },
        );
        const started = Date.now();
        // the attempt's signal goes to fetch: cancel(), the caller's signal and the deadline all
        // close the HTTP request itself
        const response = await this.#post(body, signal, req.request_id);
        const completion = (await response.json()) as AcmeCompletion;
        const choice = completion.choices[0];
        if (!choice) throw new SyntaxError('the reply has no choices');
        return {
          request_id: req.request_id,
          model: req.model,
          provider: ACME,
          content: decodeMessage(choice.message, toolIdMap),
          stop_reason: stopReasonOf(choice.finish_reason),
          usage: completion.usage
            ? usageOf(completion.usage)
            : {
                input_tokens: 0,
                output_tokens: 0,
                cached_input_tokens: 0,
                cache_creation_input_tokens: 0,
                estimated: true,
              },
          latency_ms: Date.now() - started,
          provider_raw: { id: completion.id },
        };
      },
    );
  }

  stream(request: CanonicalRequestInput, options: CallOptions = {}): AsyncIterable<StreamEvent> {
    const toolIdMap = options.toolIdMap ?? new ToolIdMap();
    const map = createChunkMapper(toolIdMap);
    return runStreamCall<AcmeChunk>(this.#setup(), request, options, {
      open: async ({ request: req, signal, logger }) => {
        const wireName = this.checkRequest(req);
        const body = encodeRequest(
          { ...req, stream: true },
          { wireName, capabilities: this.capabilitiesFor(req.model), toolIdMap, logger },
        );
        const response = await this.#post(body, signal, req.request_id);
        if (!response.body) throw new SyntaxError('the streamed reply has no body');
        return chunks(response.body, signal);
      },
      onChunk: (chunk, builder) => map(chunk, builder),
    });
  }

  #apiKey(): string {
    const key = this.config.api_key ?? process.env.ACME_API_KEY;
    if (!key)
      throw new AuthError(`${ACME}: no API key (set api_key or ACME_API_KEY)`, { provider: ACME });
    return key;
  }

  async #post(body: AcmeRequestBody, signal: AbortSignal, request_id: string): Promise<Response> {
    const base = (this.config.base_url ?? ACME_DEFAULT_BASE_URL).replace(/\/+$/, '');
    const fetchImpl = this.runtime.fetch ?? globalThis.fetch;
    const response = await fetchImpl(`${base}/chat/completions`, {
      method: 'POST',
      headers: {
        ...this.config.extra_headers,
        authorization: `Bearer ${this.#apiKey()}`,
        'content-type': 'application/json',
        accept: body.stream ? 'text/event-stream' : 'application/json',
      },
      body: JSON.stringify(body),
      signal,
    });
    if (!response.ok) {
      throw await errorFromResponse(response, { request_id, secrets: this.#secrets() });
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

  #setup() {
    return this.callSetup((error, request) =>
      toAcmeError(error, { request_id: request.request_id, secrets: this.#secrets() }),
    );
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
