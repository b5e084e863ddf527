/**
 * `message_matches` patterns: JavaScript regular expressions, case-insensitive unless told
 * otherwise. A pattern may start with inline flags as other engines write them — `(?i)`,
 * `(?s)`, `(?m)`, combined (`(?is)`) or turned off (`(?-i)`: case-sensitive) — and a rule may
 * give `message_flags` (`"s"`, `"-i"`, ...) instead; both are read here once.
 */

/** The flags `message_matches` may set or clear. */
const KNOWN = new Set(['i', 's', 'm', 'u']);
const INLINE = /^\(\?([a-z]*)(?:-([a-z]+))?\)/;

/** A compiled pattern, or why it cannot be one. */
export type CompiledPattern = { ok: true; regex: RegExp } | { ok: false; reason: string };

function applyFlags(flags: Set<string>, on: string, off: string): string | null {
  for (const flag of `${on}${off}`) {
    if (!KNOWN.has(flag)) return `unknown flag "${flag}" (use i, s, m or u)`;
  }
  for (const flag of on) flags.add(flag);
  for (const flag of off) flags.delete(flag);
  return null;
}

/** Compiles a `message_matches` pattern with its inline flags and the rule's `message_flags`. */
export function compileMessagePattern(pattern: string, messageFlags?: string): CompiledPattern {
  const flags = new Set(['i']);
  let source = pattern;
  const inline = INLINE.exec(source);
  if (inline) {
    const problem = applyFlags(flags, inline[1] ?? '', inline[2] ?? '');
    if (problem) return { ok: false, reason: `inline flags ${inline[0]}: ${problem}` };
    source = source.slice(inline[0].length);
  }
  if (messageFlags !== undefined) {
    const [on = '', off = ''] = messageFlags.split('-');
    const problem = applyFlags(flags, on, off);
    if (problem) return { ok: false, reason: `message_flags: ${problem}` };
  }
  try {
    return { ok: true, regex: new RegExp(source, [...flags].sort().join('')) };
  } catch (error) {
    return {
      ok: false,
      reason: `not a valid regular expression: ${(error as Error).message.replace(/^Invalid regular expression: /, '')}`,
    };
  }
}
