import { REDACTED, redactSecrets } from '@yourtool/core/adapter';

/**
 * Names of configuration keys whose values are credentials (`api_key`, an `Authorization`
 * header, ...). `api_key_env` is not one: its value names a variable, it is not the key.
 */
const SECRET_KEY =
  '(?:api[_-]?key|x-api-key|secret|client[_-]?secret|token|access[_-]?token|auth[_-]?token|password|authorization)';

/** `api_key: value` in block style: indentation, key, value (the rest of the line). */
const BLOCK_ENTRY = new RegExp(String.raw`^(\s*)(?:-\s+)?["']?${SECRET_KEY}["']?\s*:(.*)$`, 'i');
/** `{ ..., api_key: value, ... }` in flow style: the value up to the next `,` or `}`. */
const FLOW_ENTRY = new RegExp(
  String.raw`[{,]\s*["']?${SECRET_KEY}["']?\s*:\s*("[^"\n]*"?|'[^'\n]*'?|[^,}\n]*)`,
  'gi',
);
/** A secret key and whatever follows it on its line, anywhere in a text (a code frame). */
const ENTRY_IN_TEXT = new RegExp(
  String.raw`((?:^|[\s{,"'])["']?${SECRET_KEY}["']?[ \t]*:)([^\n]*)`,
  'gim',
);
/** What an environment variable name looks like (POSIX: letters, digits, `_`, no digit first). */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * A conventional variable name (`ANTHROPIC_API_KEY`): upper case, digits and `_`. Only such a
 * name is quoted back; another valid name may be a key pasted in the wrong field (a Mistral key
 * is 32 letters and digits) and is referred to by its field instead.
 */
const CONVENTIONAL_ENV_NAME = /^[A-Z_][A-Z0-9_]*$/;

/** What a configured `type` looks like (`anthropic`, `openai-compatible`). */
const ADAPTER_TYPE = /^[a-z][a-z0-9-]{0,39}$/;

/** The variable name to quote in a message, or a reference to the field that holds it. */
export function shownEnvName(value: string, field: string): string {
  return CONVENTIONAL_ENV_NAME.test(value) ? value : `named in ${field}`;
}

/** The adapter type to quote in a message, or a note that it is not shown. */
export function shownType(value: string): string {
  return ADAPTER_TYPE.test(value) ? `"${value}"` : '(not shown: it is not an adapter type name)';
}

/** `api_key_env: value` on a line, block or flow style. */
const KEY_ENV_ENTRY = /["']?api[_-]?key[_-]?env["']?\s*:\s*("[^"\n]*"?|'[^'\n]*'?|[^,}\n#]*)/gi;

/** Object keys whose string values are secrets. */
const SECRET_PROPERTY = new RegExp(`^${SECRET_KEY}$`, 'i');

const candidates = (raw: string): string[] => {
  const value = raw.replace(/\s+#.*$/, '').trim();
  const unquoted = value.replace(/^["']/, '').replace(/["']$/, '');
  return [value, unquoted];
};

/**
 * The values of secret keys in a YAML (or JSON) text, found line by line without parsing it,
 * so that a document too broken to parse still has its keys known: block entries (the rest of
 * the line, and the lines of a block scalar), flow entries, quoted or not.
 */
export function secretsInText(text: string): string[] {
  const found = new Set<string>();
  const lines = text.split(/\r?\n/);
  lines.forEach((line, i) => {
    const block = BLOCK_ENTRY.exec(line);
    if (block) {
      const indent = block[1]?.length ?? 0;
      const rest = block[2] ?? '';
      for (const value of candidates(rest)) found.add(value);
      if (/^\s*[|>]/.test(rest) || rest.trim() === '') {
        // a block scalar, or the value on the lines below: every more-indented line
        for (const next of lines.slice(i + 1)) {
          if (next.trim() === '') continue;
          if ((/^\s*/.exec(next)?.[0].length ?? 0) <= indent) break;
          for (const value of candidates(next)) found.add(value);
        }
      }
    }
    for (const flow of line.matchAll(FLOW_ENTRY)) {
      for (const value of candidates(flow[1] ?? '')) found.add(value);
    }
    // a key put where a variable name belongs is still a key
    for (const entry of line.matchAll(KEY_ENV_ENTRY)) {
      for (const value of candidates(entry[1] ?? '')) {
        if (value !== '' && !CONVENTIONAL_ENV_NAME.test(value)) found.add(value);
      }
    }
  });
  return [...found].filter((value) => value.length >= 6);
}

/** The string values of secret keys anywhere in a parsed document. */
export function secretsInValue(value: unknown, found: string[] = [], depth = 0): string[] {
  if (depth > 32 || value === null || typeof value !== 'object') return found;
  for (const [key, child] of Object.entries(value)) {
    if (typeof child === 'string' && SECRET_PROPERTY.test(key)) found.push(child);
    else if (
      typeof child === 'string' &&
      /^api[_-]?key[_-]?env$/i.test(key) &&
      !ENV_NAME.test(child)
    )
      found.push(child);
    else secretsInValue(child, found, depth + 1);
  }
  return found;
}

/**
 * Text bound for a config error with its secrets removed: every known secret value, whatever
 * follows a secret key on its line (a YAML code frame quoting the `api_key` line), and anything
 * shaped like a provider key or bearer token (core's `redactSecrets`).
 */
export function redactConfigText(text: string, secrets: readonly string[] = []): string {
  const longestFirst = [...secrets].sort((a, b) => b.length - a.length);
  return redactSecrets(text, longestFirst).replace(ENTRY_IN_TEXT, (match, key: string, rest) =>
    rest.trim() === '' || rest.trim() === REDACTED ? match : `${key} ${REDACTED}`,
  );
}
