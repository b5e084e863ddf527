/**
 * Transport failures, recognised by what they are (error codes on the cause chain, error
 * types), never by the wording of a message: a JSON parser's "Unterminated string" is not a
 * broken connection, and a provider message that mentions a "socket" is not one either.
 */

/** Codes of system, TLS and undici (Node's fetch) errors that mean the connection failed or broke. */
const NETWORK_CODES: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'the connection was reset',
  ECONNABORTED: 'the connection was aborted',
  EPIPE: 'the connection closed while the request was being sent',
  ETIMEDOUT: 'the connection timed out',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host lookup failed',
  EAI_FAIL: 'host lookup failed',
  EHOSTUNREACH: 'host unreachable',
  EHOSTDOWN: 'host down',
  ENETUNREACH: 'network unreachable',
  ENETDOWN: 'network down',
  ENETRESET: 'the connection was reset by the network',
  EPROTO: 'protocol error',
  UND_ERR_SOCKET: 'the connection closed before the reply was complete',
  UND_ERR_CLOSED: 'the connection was closed',
  UND_ERR_CONNECT_TIMEOUT: 'connecting timed out',
  UND_ERR_HEADERS_TIMEOUT: 'no reply headers in time',
  UND_ERR_BODY_TIMEOUT: 'the reply stalled',
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: 'the reply was shorter or longer than announced',
  // undici's HTTP parser: a connection closed mid-body (`Connection: close` cut short)
  HPE_INVALID_EOF_STATE: 'the connection closed before the reply was complete',
  CERT_HAS_EXPIRED: 'TLS: the certificate has expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'TLS: self-signed certificate',
  SELF_SIGNED_CERT_IN_CHAIN: 'TLS: self-signed certificate in the chain',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'TLS: the certificate could not be verified',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'TLS: the certificate issuer is unknown',
};

/** How far {@link classifyTransportFailure} follows `cause` (and `AggregateError.errors`). */
const MAX_CHAIN = 8;

/** A failure below HTTP, as {@link classifyTransportFailure} sees it. */
export interface TransportFailure {
  /**
   * `network` for a connection that could not be made or broke (retried for a non-streaming
   * call, counted by availability); `server_error` for a reply that arrived but does not parse
   * (decision 0071).
   */
  error_class: 'network' | 'server_error';
  /** What decided it: the error code (`ECONNRESET`, `UND_ERR_SOCKET`, ...) or `malformed_reply`. */
  code: string;
  /** What happened, for a person: "the connection was reset". */
  description: string;
}

/** Every error on the cause chain (and inside `AggregateError.errors`), breadth first, once each. */
function chain(error: unknown): unknown[] {
  const out: unknown[] = [];
  const queue: unknown[] = [error];
  const seen = new Set<unknown>();
  while (queue.length > 0 && out.length < MAX_CHAIN) {
    const current = queue.shift();
    if (current === null || typeof current !== 'object' || seen.has(current)) continue;
    seen.add(current);
    out.push(current);
    const cause = (current as { cause?: unknown }).cause;
    if (cause !== undefined) queue.push(cause);
    const errors = (current as { errors?: unknown }).errors;
    if (current instanceof AggregateError && Array.isArray(errors)) queue.push(...errors);
  }
  return out;
}

/**
 * The first code on `error`'s cause chain that names a transport failure (a system errno code
 * such as `ECONNRESET`, a TLS certificate or `ERR_TLS_*` / `ERR_SSL_*` code, or an undici code
 * such as `UND_ERR_SOCKET`, or an HTTP parser code such as `HPE_INVALID_EOF_STATE`), or
 * `undefined`. Node's fetch reports a connection that breaks mid-body as `TypeError:
 * terminated` whose cause carries `UND_ERR_SOCKET` (reset) or `HPE_INVALID_EOF_STATE` (a clean
 * close before the last chunk of a `Connection: close` reply), and a refused
 * connection as `TypeError: fetch failed` whose cause carries `ECONNREFUSED`.
 */
export function networkErrorCode(error: unknown): string | undefined {
  for (const link of chain(error)) {
    for (const field of ['code', 'errno'] as const) {
      const code = (link as Record<string, unknown>)[field];
      if (typeof code !== 'string') continue;
      if (code in NETWORK_CODES || /^(?:ERR_(?:TLS|SSL)_|HPE_)/.test(code)) return code;
    }
  }
  return undefined;
}

/** A person's description of a code {@link networkErrorCode} returned. */
export function describeNetworkErrorCode(code: string): string {
  if (NETWORK_CODES[code]) return NETWORK_CODES[code];
  if (/^HPE_/.test(code)) return `the reply broke the HTTP protocol (${code})`;
  return /^ERR_(?:TLS|SSL)_/.test(code) ? `TLS error (${code})` : code;
}

/**
 * Classifies a failure below HTTP by its type, for adapters' error mappers (after their SDK's
 * own error classes, which say more):
 *
 * - a transport code on the cause chain ({@link networkErrorCode}) → `network`;
 * - a `SyntaxError` on the chain (the reply, or one chunk of a stream, did not parse) →
 *   `server_error`: the provider answered, and what it sent is broken (decision 0071);
 * - anything else → `undefined` (the mapper decides; usually `other`).
 */
export function classifyTransportFailure(error: unknown): TransportFailure | undefined {
  const code = networkErrorCode(error);
  if (code !== undefined) {
    return { error_class: 'network', code, description: describeNetworkErrorCode(code) };
  }
  if (chain(error).some((link) => link instanceof SyntaxError)) {
    return {
      error_class: 'server_error',
      code: 'malformed_reply',
      description: 'the reply was not valid JSON',
    };
  }
  return undefined;
}
