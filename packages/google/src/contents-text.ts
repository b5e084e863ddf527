import type { GenerateContentParameters } from '@google/genai';
import { OtherAdapterError } from '@yourtool/core';
import { GOOGLE } from './codec/signatures.js';

/**
 * Sends a request's `contents` as JSON text the codec already wrote, through the SDK's own
 * pipeline (decision 0194). `@google/genai` takes no request body as text through its public
 * methods: `generateContent` converts every turn with its transformers and stringifies the
 * result. So the SDK is given one placeholder turn instead of the contents (it converts and
 * writes everything else: the URL, the API version, auth and custom headers, the config's
 * fields, a continuation token, timeouts, abort, status errors), and the fetch it sends
 * through puts the contents' JSON where the placeholder's is in the body text.
 */
export class ContentsText {
  /** A text no request carries, so its turn's JSON is found only where the SDK wrote it. */
  readonly #marker = `yourtool-contents-${crypto.randomUUID()}`;
  /** The placeholder turn's JSON as the SDK writes the `contents` field. */
  readonly #written = `"contents":[{"parts":[{"text":"${this.#marker}"}],"role":"user"}]`;

  /**
   * `params` with the placeholder for contents and a per-request `fetch` that sends `json` (the
   * contents' JSON as the SDK would write it) in its place, through `fetch`.
   */
  params(
    params: GenerateContentParameters,
    json: string,
    fetch: typeof globalThis.fetch,
  ): GenerateContentParameters {
    const config = params.config ?? {};
    return this.placeholder({
      ...params,
      config: { ...config, httpOptions: { ...config.httpOptions, fetch: this.fetch(json, fetch) } },
    });
  }

  /** `params` with the placeholder for contents (sent through a fetch from {@link fetch}). */
  placeholder(params: GenerateContentParameters): GenerateContentParameters {
    return { ...params, contents: [{ role: 'user', parts: [{ text: this.#marker }] }] };
  }

  /** A fetch that sends `json` as the request's contents, through `fetch`. */
  fetch(json: string, fetch: typeof globalThis.fetch): typeof globalThis.fetch {
    const written = this.#written;
    return (input, init) => {
      const body = init?.body;
      const at = typeof body === 'string' ? body.indexOf(written) : -1;
      if (typeof body !== 'string' || at < 0) {
        throw new OtherAdapterError(
          'google: the request body @google/genai wrote has no placeholder contents to put the contents JSON in (an SDK version that writes bodies differently?)',
          { provider: GOOGLE, retryable: false },
        );
      }
      const text = `${body.slice(0, at)}"contents":${json}${body.slice(at + written.length)}`;
      return fetch(input, { ...init, body: text });
    };
  }
}
