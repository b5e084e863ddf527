/**
 * Where an adapter sends its requests, as the conventions' `server.address` and `server.port`
 * name it on call spans and client metric points: read once from the adapter's base URL (its
 * configuration, its environment variable or its SDK's default host).
 */

/** The host and port a call goes to (`server.address`, `server.port`). */
export interface ServerAddress {
  /** Host name or IP address, without brackets for IPv6 (`api.anthropic.com`, `127.0.0.1`). */
  readonly address: string;
  /** The port: the URL's own, else the scheme's default (443 for `https`, 80 for `http`). */
  readonly port: number;
}

const DEFAULT_PORTS: Readonly<Record<string, number>> = { 'https:': 443, 'http:': 80 };

/**
 * The server of a base URL (`https://api.openai.com/v1` → `api.openai.com`, 443), or null when
 * there is none or it does not parse, or its scheme has no known default port and names none.
 */
export function serverAddressOf(url: string | URL | null | undefined): ServerAddress | null {
  if (!url) return null;
  let parsed: URL;
  try {
    parsed = typeof url === 'string' ? new URL(url) : url;
  } catch {
    return null;
  }
  const address = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  if (address === '') return null;
  const port = parsed.port === '' ? DEFAULT_PORTS[parsed.protocol] : Number(parsed.port);
  return port === undefined || !Number.isInteger(port) ? null : { address, port };
}
