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
  /**
   * A streaming call's NDJSON response body, unread, for core to read (the adapter's
   * `ollamaStreamBody` parses and checks it line by line). Call it once
   * `client.chat({ stream: true })` has resolved: the client sent the request and checked the
   * status, and the body was kept from it (its reader logs and drops lines it cannot parse).
   * @throws Error when no streamed body was kept.
   */
  body(): ReadableStream<Uint8Array>;
  /**
   * `/api/chat` through the client, sending `body` (the request's UTF-8 JSON, `stream`
   * included): the client serializes only a stand-in of the model and `stream`, and the call's
   * `fetch` sends `body` in its place (decision 0195). Headers, URL, status checks and the
   * reply's parsing stay the client's. Resolves when the client has its response: the reply for
   * `stream: false`, for `stream: true` once the body is kept for {@link body}.
   */
  chat(body: Uint8Array, standIn: { model: string; stream: boolean }): Promise<unknown>;
}

/** What one call's transport does with response bodies. */
export interface OllamaCallTransportOptions {
  /**
   * The call streams (`/api/chat` with `stream: true`): the body of a successful response is
   * kept for {@link OllamaCallTransport.body}, and the client gets an empty one.
   */
  stream?: boolean;
}

/**
 * Creates an ollama client for one call. The ollama client's own `abort()` aborts every stream
 * of a client, so each call gets its own client whose `fetch` carries the call's signal (the
 * caller's signal or `cancel(request_id)`) and the timeout: cancelling one call closes only its
 * connection, also for non-streaming calls, where the client passes no signal at all.
 *
 * The `fetch` also keeps the client off the console, whose own lines bypass the application's
 * logger and may print model output: an error response reaches the client as a JSON
 * `{"error": ...}` body, the one shape it reads without logging, and a
 * streamed body is read by core for the adapter ({@link OllamaCallTransport.body}), never by the
 * client's NDJSON reader, which logs and drops a line it cannot parse.
 *
 * The browser build of the client is used on purpose: the Node build reads a local file when
 * an image string happens to name an existing path, which a base64 string from a conversation
 * must never do.
 */
export function createOllamaCallTransport(
  settings: OllamaTransportSettings,
  signal: AbortSignal,
  options: OllamaCallTransportOptions = {},
): OllamaCallTransport {
  const base = settings.fetch ?? globalThis.fetch;
  let headers: Headers | null = null;
  let body: ReadableStream<Uint8Array> | null = null;
  // the body of the next POST, sent in place of the client's serialization of a stand-in
  let pending: Uint8Array | null = null;
  const callFetch: typeof fetch = async (input, init = {}) => {
    const signals = [signal, AbortSignal.timeout(settings.timeoutMs)];
    if (init.signal) signals.push(init.signal);
    const sent = pending !== null && init.method === 'POST' ? { ...init, body: pending } : init;
    pending = null;
    const response = await base(input, { ...sent, signal: AbortSignal.any(signals) });
    headers = response.headers;
    if (!response.ok) return jsonErrorResponse(response);
    if (options.stream && response.body) {
      body = response.body;
      return new Response('', {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
    }
    return response;
  };
  const client = new Ollama({ host: settings.host, headers: settings.headers, fetch: callFetch });
  return {
    client,
    lastHeaders: () => headers,
    body: () => {
      if (!body) throw new Error('ollama: no streamed response body to read');
      return body;
    },
    chat: (bytes, standIn) => {
      pending = bytes;
      return standIn.stream
        ? client.chat({ model: standIn.model, stream: true })
        : client.chat({ model: standIn.model, stream: false });
    },
  };
}

/** The text of an error body: its `error` (or `error.message`) when it is JSON saying one. */
function errorText(body: string, status: number, statusText: string): string {
  const trimmed = body.trim();
  if (trimmed === '') return `Error ${status}: ${statusText}`.trim();
  try {
    const parsed: unknown = JSON.parse(trimmed);
    if (parsed !== null && typeof parsed === 'object' && 'error' in parsed) {
      const error = (parsed as { error: unknown }).error;
      if (typeof error === 'string' && error !== '') return error;
      if (error !== null && typeof error === 'object') {
        const message = (error as { message?: unknown }).message;
        if (typeof message === 'string' && message !== '') return message;
      }
    }
  } catch {
    // not JSON: the text itself is the message
  }
  return trimmed;
}

/**
 * A non-2xx response rewritten as `{"error": "<text>"}` with a JSON content type, same status
 * and headers. The client turns that into its `ResponseError` without writing to the console
 * (for a non-JSON error body, or JSON it cannot parse, it logs before reading it).
 */
async function jsonErrorResponse(response: Response): Promise<Response> {
  const text = await response.text();
  const headers = new Headers(response.headers);
  headers.set('content-type', 'application/json');
  headers.delete('content-length');
  headers.delete('content-encoding');
  return new Response(
    JSON.stringify({ error: errorText(text, response.status, response.statusText) }),
    { status: response.status, statusText: response.statusText, headers },
  );
}
