/** What replaces a secret in text that leaves the library. */
export const REDACTED = '[REDACTED]';

/** Token shapes of well-known API keys and credentials, redacted even when the key is not known. */
const KEY_PATTERNS: RegExp[] = [
  /sk-ant-[A-Za-z0-9_-]{8,}/g,
  /sk-or-v1-[A-Za-z0-9]{8,}/g,
  /sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{16,}/g,
  /\bBearer\s+[A-Za-z0-9._~+/-]{12,}=*/gi,
  /\bAIza[0-9A-Za-z_-]{30,}/g,
  /\bgh[pousr]_[A-Za-z0-9]{30,}/g,
  /\bhf_[A-Za-z0-9]{30,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g,
];

/**
 * Removes secrets from text bound for an error message, a log line or a stored row: every
 * occurrence of each given secret, then anything shaped like a provider API key or bearer token.
 * Secrets shorter than 6 characters are ignored (they would redact ordinary words).
 */
export function redactSecrets(
  text: string,
  secrets: ReadonlyArray<string | null | undefined> = [],
): string {
  let out = text;
  for (const secret of secrets) {
    if (secret && secret.length >= 6) out = out.split(secret).join(REDACTED);
  }
  for (const pattern of KEY_PATTERNS) out = out.replace(pattern, REDACTED);
  return out;
}

const SECRET_HEADERS = new Set([
  'authorization',
  'x-api-key',
  'api-key',
  'apikey',
  'proxy-authorization',
  'cookie',
  'set-cookie',
]);

/** Names that end like a credential: `x-goog-api-key`, `x-custom-token`, `x-client-secret`, ... */
const SECRET_HEADER_NAME =
  /(?:^|[-_])(?:token|key|secret|password|passwd|credentials?|signature|auth)$/i;

/** Names that end like a credential but are not one. */
const NOT_SECRET_HEADERS = new Set(['idempotency-key']);

/**
 * Whether an HTTP header carries credentials and must never be recorded: `authorization`,
 * `x-api-key`, `api-key`, cookies, and any name ending in `-token`, `-key`, `-secret`,
 * `-password`, `-credentials`, `-signature` or `-auth` (`x-goog-api-key`, `x-custom-token`).
 */
export function isSecretHeader(name: string): boolean {
  const lower = name.toLowerCase();
  if (SECRET_HEADERS.has(lower)) return true;
  return SECRET_HEADER_NAME.test(lower) && !NOT_SECRET_HEADERS.has(lower);
}

/**
 * Whether a header value looks like a credential whatever its header's name: it holds a known
 * key shape, or it is one opaque token (after an optional `Bearer` / `Token` / `Basic` scheme)
 * of at least 20 characters mixing upper case, lower case and digits. Request ids and trace ids
 * (one case, hex) are not.
 */
function looksLikeCredential(value: string): boolean {
  if (KEY_PATTERNS.some((pattern) => new RegExp(pattern.source, pattern.flags).test(value))) {
    return true;
  }
  const token = value.trim().replace(/^(?:bearer|token|basic)\s+/i, '');
  return (
    token.length >= 20 &&
    /^[A-Za-z0-9._~+/=-]+$/.test(token) &&
    /[a-z]/.test(token) &&
    /[A-Z]/.test(token) &&
    /[0-9]/.test(token)
  );
}

/**
 * Copies headers for a record (a request log, a fixture), replacing with {@link REDACTED} the
 * whole value of every header that carries credentials: by name ({@link isSecretHeader}), or
 * because its value contains one of `secrets` (the configured API key, custom header values)
 * or looks like a credential (a known key shape, a long opaque mixed-case token).
 */
export function redactHeaders(
  headers: Record<string, string>,
  secrets: ReadonlyArray<string | null | undefined> = [],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const secret =
      isSecretHeader(name) ||
      secrets.some((s) => !!s && s.length >= 6 && value.includes(s)) ||
      looksLikeCredential(value);
    out[name] = secret ? REDACTED : value;
  }
  return out;
}

/** How deep {@link redactError} copies nested values (cause chains, error bodies). */
const MAX_REDACT_DEPTH = 12;

type Secrets = ReadonlyArray<string | null | undefined>;

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Headers of an error, credential headers removed and the others' values redacted. */
function redactErrorHeaders(headers: unknown, secrets: Secrets): unknown {
  if (typeof Headers !== 'undefined' && headers instanceof Headers) {
    const out = new Headers();
    headers.forEach((value, name) => {
      if (!isSecretHeader(name)) out.append(name, redactSecrets(value, secrets));
    });
    return out;
  }
  if (headers !== null && typeof headers === 'object' && !Array.isArray(headers)) {
    const out: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(headers)) {
      if (isSecretHeader(name)) continue;
      out[name] =
        typeof value === 'string'
          ? redactSecrets(value, secrets)
          : Array.isArray(value)
            ? value.map((v) => (typeof v === 'string' ? redactSecrets(v, secrets) : v))
            : value;
    }
    return out;
  }
  return headers;
}

class ErrorRedactor {
  readonly #secrets: Secrets;
  readonly #copies = new Map<object, unknown>();

  constructor(secrets: Secrets) {
    this.#secrets = secrets;
  }

  copy(value: unknown, depth: number, key?: PropertyKey): unknown {
    if (typeof value === 'string') return redactSecrets(value, this.#secrets);
    if (value === null || typeof value !== 'object') return value;
    const known = this.#copies.get(value);
    if (known !== undefined) return known;
    if (depth > MAX_REDACT_DEPTH) return '[truncated]';
    if (key === 'headers' || (typeof Headers !== 'undefined' && value instanceof Headers)) {
      return redactErrorHeaders(value, this.#secrets);
    }
    if (value instanceof Error) return this.#error(value, depth);
    if (Array.isArray(value)) {
      const out: unknown[] = [];
      this.#copies.set(value, out);
      for (const item of value) out.push(this.copy(item, depth + 1));
      return out;
    }
    if (isPlainObject(value)) {
      const out: Record<string, unknown> = Object.create(Object.getPrototypeOf(value));
      this.#copies.set(value, out);
      for (const [name, item] of Object.entries(value)) {
        out[name] =
          typeof item === 'string' && isSecretHeader(name)
            ? REDACTED
            : this.copy(item, depth + 1, name);
      }
      return out;
    }
    if (value instanceof Date) return new Date(value.getTime());
    if (value instanceof URL) return redactSecrets(value.href, this.#secrets);
    // Anything else (a socket, a Response, a buffer) could hold anything: only its kind is kept.
    return `[${value.constructor?.name ?? 'object'}]`;
  }

  #error(error: Error, depth: number): Error {
    let out: Error;
    if (typeof DOMException !== 'undefined' && error instanceof DOMException) {
      out = new DOMException(redactSecrets(error.message, this.#secrets), error.name);
    } else {
      // A native error object (so `util.inspect` prints it as one) with the original's prototype
      // (so `instanceof` still holds), without running the original's constructor.
      out = new Error();
      Object.setPrototypeOf(out, Object.getPrototypeOf(error));
    }
    this.#copies.set(error, out);
    const keys = Reflect.ownKeys(error);
    if (!keys.includes('stack')) delete (out as { stack?: string }).stack;
    for (const key of keys) {
      const descriptor = Object.getOwnPropertyDescriptor(error, key);
      if (!descriptor) continue;
      let value: unknown;
      try {
        value = 'value' in descriptor ? descriptor.value : descriptor.get?.call(error);
      } catch {
        continue;
      }
      Object.defineProperty(out, key, {
        value: this.copy(value, depth + 1, key),
        writable: true,
        configurable: true,
        enumerable: descriptor.enumerable ?? false,
      });
    }
    return out;
  }
}

/**
 * A redacted copy of an error and everything it holds, for keeping as the `cause` of an error
 * that leaves the library (an SDK error may carry the API key that a provider or a proxy echoed
 * back in its message, body or headers):
 *
 * - every string, at any depth (message, stack, the SDK's parsed error body `error`, nested
 *   `cause`, `AggregateError.errors`), goes through {@link redactSecrets} with `secrets`;
 * - `headers` (a `Headers` object or a record) lose their credential headers
 *   ({@link isSecretHeader}); the other values are redacted;
 * - a plain object's credential-named string fields (`authorization`, `api_key`, ...) become
 *   {@link REDACTED};
 * - errors keep their prototype (`instanceof` still holds) and their own fields; a
 *   `DOMException` is rebuilt as one; dates are copied, URLs become redacted strings, and any
 *   other class instance (a socket, a buffer) is replaced by its kind, e.g. `[Socket]`;
 * - cycles are preserved, nesting deeper than 12 levels is cut.
 *
 * The original is not modified. Anything that is not an object is returned as is (a string is
 * redacted).
 */
export function redactError<E extends Error>(error: E, secrets?: Secrets): E;
export function redactError(error: unknown, secrets?: Secrets): unknown;
export function redactError(error: unknown, secrets: Secrets = []): unknown {
  return new ErrorRedactor(secrets).copy(error, 0);
}
