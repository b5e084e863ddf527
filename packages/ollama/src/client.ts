import { Ollama } from 'ollama/browser';

/** The default Ollama host. */
export const DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434';

/** What every call's client shares. */
export interface OllamaTransportSettings {
  /** Ollama server root, e.g. `http://127.0.0.1:11434`. */
  host: string;
  /** Headers on every request (`extra_headers`, and `Authorization` when an API key is set). */
  headers: Record<string, string>;
  /** Overall time limit of one HTTP exchange, body included. */
  timeoutMs: number;
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
}

/** One call's client, and what its last HTTP response said. */
export interface OllamaCallTransport {
  client: Ollama;
  /** Headers of the last response received (for `retry-after` on failures). */
  lastHeaders(): Headers | null;
}

/**
 * Creates an ollama client for one call. The ollama client's own `abort()` aborts every stream
 * of a client, so each call gets its own client whose `fetch` carries the call's signal (the
 * caller's signal or `cancel(request_id)`) and the timeout: cancelling one call closes only its
 * connection, also for non-streaming calls, where the client passes no signal at all.
 *
 * The browser build of the client is used on purpose: the Node build reads a local file when
 * an image string happens to name an existing path, which a base64 string from a conversation
 * must never do.
 */
export function createOllamaCallTransport(
  settings: OllamaTransportSettings,
  signal: AbortSignal,
): OllamaCallTransport {
  const base = settings.fetch ?? globalThis.fetch;
  let headers: Headers | null = null;
  const callFetch: typeof fetch = async (input, init = {}) => {
    const signals = [signal, AbortSignal.timeout(settings.timeoutMs)];
    if (init.signal) signals.push(init.signal);
    const response = await base(input, { ...init, signal: AbortSignal.any(signals) });
    headers = response.headers;
    return response;
  };
  const client = new Ollama({ host: settings.host, headers: settings.headers, fetch: callFetch });
  return { client, lastHeaders: () => headers };
}
