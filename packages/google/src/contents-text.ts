import type { GenerateContentParameters } from '@google/genai';
import { OtherAdapterError } from '@yourtool/core';
import { GOOGLE } from './codec/signatures.js';
import { concatBytes, utf8 } from './codec/wire-json.js';

/** The fetch a request goes through, and whether it takes the body as text. */
export interface BodyFetch {
  fetch: typeof globalThis.fetch;
  /** Whether to send the body as a string (as the SDK does) rather than as UTF-8 bytes. */
  text: boolean;
}

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
   * contents' JSON as the SDK would write it, UTF-8) in its place, through `fetch`.
   */
  params(
    params: GenerateContentParameters,
    json: Uint8Array,
    fetch: BodyFetch,
  ): GenerateContentParameters {
    const config = params.config ?? {};
    const send = this.fetch(json, fetch);
    return this.placeholder({
      ...params,
      config: { ...config, httpOptions: { ...config.httpOptions, fetch: send } },
    });
  }

  /** `params` with the placeholder for contents (sent through a fetch from {@link fetch}). */
  placeholder(params: GenerateContentParameters): GenerateContentParameters {
    return { ...params, contents: [{ role: 'user', parts: [{ text: this.#marker }] }] };
  }

  /**
   * A fetch that sends `json` (UTF-8) as the request's contents, through `fetch.fetch`: the
   * body goes as bytes (the SDK's text around the contents encoded, the contents copied once),
   * or as text to a fetch that wants it (`fetch.text`: one the caller configured, which the SDK
   * always gave a string).
   */
  fetch(json: Uint8Array, { fetch, text: asText }: BodyFetch): typeof globalThis.fetch {
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
      const before = `${body.slice(0, at)}"contents":`;
      const after = body.slice(at + written.length);
      const sent = asText
        ? `${before}${new TextDecoder().decode(json)}${after}`
        : concatBytes([utf8(before), json, utf8(after)]);
      return fetch(input, { ...init, body: sent });
    };
  }
}
