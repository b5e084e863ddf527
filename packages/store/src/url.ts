import { REDACTED, redactSecrets } from '@yourtool/core/adapter';
import { UnsupportedStoreUrlError } from './errors.js';

/** Where a store lives, parsed from its URL. */
export type StoreLocation =
  | {
      dialect: 'sqlite';
      /** A file path, or `:memory:` for a private in-memory database. */
      filename: string;
    }
  | {
      dialect: 'postgres';
      /** The connection string handed to `pg`, without the `schema` parameter. */
      connectionString: string;
      /** From `?schema=` in the URL, if given. */
      schema?: string;
      /** The password in the URL, kept only to redact it from errors. */
      password?: string;
    };

/**
 * Replaces the password of a URL (`postgres://user:secret@host/db`) with `[REDACTED]`, and any
 * API-key-shaped token. Use it on anything that may end up in a log.
 */
export function redactStoreUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') {
      const secret = decodeURIComponent(parsed.password);
      return redactSecrets(url, [parsed.password, secret]).replace(
        /^([a-z][a-z0-9+.-]*:\/\/[^:/@]*:)[^@]*@/i,
        `$1${REDACTED}@`,
      );
    }
  } catch {
    // not a WHATWG URL: fall through to the pattern below
  }
  return redactSecrets(url).replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*:)[^@]*@/i, `$1${REDACTED}@`);
}

/**
 * Parses a store URL:
 * - `sqlite:./path/to/file.db`, `sqlite:/absolute/file.db` (also `sqlite:///absolute/file.db`),
 * - `sqlite::memory:` for a private in-memory database,
 * - `postgres://user:password@host:5432/database` (or `postgresql://`), optionally with
 *   `?schema=name` to keep the tables in that schema.
 *
 * @throws UnsupportedStoreUrlError for any other scheme, or an empty path; the URL in the
 * message has its password redacted.
 */
export function parseStoreUrl(url: string): StoreLocation {
  if (url.startsWith('sqlite:')) {
    let filename = url.slice('sqlite:'.length);
    if (filename.startsWith('//')) filename = filename.slice(2);
    if (filename === '') {
      throw new UnsupportedStoreUrlError(url, 'no file path after "sqlite:"');
    }
    return { dialect: 'sqlite', filename };
  }
  if (/^postgres(ql)?:\/\//i.test(url)) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new UnsupportedStoreUrlError(redactStoreUrl(url), 'not a valid URL');
    }
    const schema = parsed.searchParams.get('schema');
    parsed.searchParams.delete('schema');
    const location: StoreLocation = {
      dialect: 'postgres',
      connectionString: schema === null ? url : parsed.toString(),
    };
    if (schema !== null) location.schema = schema;
    if (parsed.password !== '') location.password = decodeURIComponent(parsed.password);
    return location;
  }
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1];
  throw new UnsupportedStoreUrlError(
    redactStoreUrl(url),
    scheme === undefined
      ? 'expected a URL such as "sqlite:./app.db", "sqlite::memory:" or "postgres://host/db"'
      : `unknown scheme "${scheme}:"; expected "sqlite:" or "postgres://"`,
  );
}
