import type {
  GenerateContentParameters,
  GenerateContentResponse,
  GoogleGenAI,
} from '@google/genai';

/**
 * A sent `generateContentStream` request: the response, its status checked by the SDK and its
 * body not read yet, or (should an SDK version not call the fetch it is given) the SDK's own
 * parsed stream.
 */
export type SentGeminiStream =
  | { response: Response }
  | { stream: AsyncGenerator<GenerateContentResponse> };

/**
 * Sends a streaming request through the SDK's public `generateContentStream`, which builds it
 * (endpoint, API version, `alt=sse`, auth and custom headers, body conversion) and checks the
 * status (an error status throws its `ApiError`), with a per-request `httpOptions.fetch` that
 * calls `fetch` and keeps the response. The SDK reads a stream's body only once its stream is
 * iterated, which the adapter never does: core reads the body instead (decision 0147).
 */
export async function sendGeminiStream(
  sdk: GoogleGenAI,
  params: GenerateContentParameters,
  fetch: typeof globalThis.fetch,
): Promise<SentGeminiStream> {
  let response: Response | undefined;
  const keep: typeof globalThis.fetch = async (input, init) => {
    response = await fetch(input, init);
    return response;
  };
  const config = params.config ?? {};
  const stream = await sdk.models.generateContentStream({
    ...params,
    config: { ...config, httpOptions: { ...config.httpOptions, fetch: keep } },
  });
  return response ? { response } : { stream };
}

/** The key under which undici (Node's fetch) keeps its global dispatcher. */
const UNDICI_GLOBAL_DISPATCHER = Symbol.for('undici.globalDispatcher.1');

interface Dispatcher {
  dispatch(options: object, handler: unknown): boolean;
}

/**
 * A per-request undici dispatcher that sends through the global one with undici's own header
 * and body timeouts (300 s) turned off, as `@google/genai` does for every request it sends
 * with the global `fetch` on Node (`createUndiciNoTimeoutDispatcher`).
 */
const noTimeoutDispatcher: Dispatcher = {
  dispatch(options, handler) {
    const globals = globalThis as Record<symbol, Dispatcher | undefined>;
    if (!globals[UNDICI_GLOBAL_DISPATCHER]) new Headers(); // makes Node load undici
    const global = globals[UNDICI_GLOBAL_DISPATCHER];
    if (typeof global?.dispatch !== 'function') {
      throw new Error('google: Node.js fetch (undici) has no global dispatcher to send through');
    }
    return global.dispatch({ ...options, headersTimeout: 0, bodyTimeout: 0 }, handler);
  },
};

/**
 * The fetch the SDK uses when it is given none: the global `fetch` without undici's header and
 * body timeouts, so how long a stream may wait for its first byte or between chunks is core's
 * deadlines' to say (`timeout_seconds`, `idle_timeout_seconds`), as when the SDK fetched
 * itself. The SDK adds that dispatcher only to its own fetch calls, so the adapter, passing a
 * fetch of its own to get the response, adds it. A configured runtime `fetch` gets none, as
 * the SDK gives it none.
 */
export const sdkDefaultFetch: typeof globalThis.fetch = (input, init) =>
  fetch(input, { ...init, dispatcher: noTimeoutDispatcher } as RequestInit);
