/** What replaces a secret in text that leaves the library. */
export const REDACTED = '[REDACTED]';

/** Token shapes of well-known providers' API keys, redacted even when the key is not known. */
const KEY_PATTERNS: RegExp[] = [
  /sk-ant-[A-Za-z0-9_-]{8,}/g,
  /sk-or-v1-[A-Za-z0-9]{8,}/g,
  /sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{16,}/g,
  /\bBearer\s+[A-Za-z0-9._~+/-]{12,}=*/gi,
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
  'proxy-authorization',
  'cookie',
  'set-cookie',
]);

/** Whether an HTTP header carries credentials and must never be recorded. */
export function isSecretHeader(name: string): boolean {
  return SECRET_HEADERS.has(name.toLowerCase());
}

/** Copies headers, replacing the values of credential headers with {@link REDACTED}. */
export function redactHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    out[name] = isSecretHeader(name) ? REDACTED : redactSecrets(value);
  }
  return out;
}
