import { InvalidStoreInputError } from './errors.js';
import type { SessionExport } from './transfer.js';

/** The version of the session JSON lines format this code writes and reads. */
export const SESSION_LINES_VERSION = 1;

/** The `format` field of a session line. */
export const SESSION_LINES_FORMAT = 'yourtool.session';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Canonical JSON text of a JSON value: object keys sorted (by UTF-16 code units), no
 * whitespace, numbers and strings as `JSON.stringify` writes them (ECMAScript's shortest
 * round-trip form, as RFC 8785 specifies). Equal values give byte-identical text, whatever
 * order their keys were built in. Not recursive on the call stack: any depth is safe.
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  // a work list of values to write and literal text to emit between them
  const work: Array<{ value: unknown } | string> = [{ value }];
  while (work.length > 0) {
    const item = work.pop() as { value: unknown } | string;
    if (typeof item === 'string') {
      out.push(item);
      continue;
    }
    const current = item.value;
    if (Array.isArray(current)) {
      const parts: Array<{ value: unknown } | string> = ['['];
      current.forEach((element, i) => {
        if (i > 0) parts.push(',');
        parts.push({ value: element === undefined ? null : element });
      });
      parts.push(']');
      work.push(...parts.reverse());
    } else if (isObject(current)) {
      const keys = Object.keys(current)
        .filter((key) => current[key] !== undefined)
        .sort();
      const parts: Array<{ value: unknown } | string> = ['{'];
      keys.forEach((key, i) => {
        parts.push(`${i > 0 ? ',' : ''}${JSON.stringify(key)}:`, { value: current[key] });
      });
      parts.push('}');
      work.push(...parts.reverse());
    } else {
      out.push(JSON.stringify(current) ?? 'null');
    }
  }
  return out.join('');
}

/**
 * A session export as JSON lines, each line one canonical JSON record (see
 * {@link canonicalJson}), ending with a newline:
 *
 * ```
 * {"format":"yourtool.session","record":"session","session":{...},"version":1}
 * {"message":{...},"record":"message"}            one per message, in load order
 * {"record":"tool_call","tool_call":{...}}        one per tool call, in creation order
 * ```
 *
 * Several sessions can follow each other in one stream. The same session always gives the same
 * bytes, so export → import into an empty store → export is byte-identical.
 */
export function sessionToLines(data: SessionExport): string {
  const lines = [
    canonicalJson({
      format: SESSION_LINES_FORMAT,
      version: SESSION_LINES_VERSION,
      record: 'session',
      session: data.session,
    }),
    ...data.messages.map((message) => canonicalJson({ record: 'message', message })),
    ...data.tool_calls.map((tool_call) => canonicalJson({ record: 'tool_call', tool_call })),
  ];
  return `${lines.join('\n')}\n`;
}

function lineProblem(line: number, message: string): InvalidStoreInputError {
  return new InvalidStoreInputError('session lines', [{ path: `line ${line}`, message }]);
}

/** One record of a session line, checked for its shape only. */
function readRecord(text: string, line: number): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw lineProblem(line, `not valid JSON (${(error as Error).message})`);
  }
  if (!isObject(value)) throw lineProblem(line, 'must be a JSON object');
  return value;
}

/**
 * Reads session JSON lines (one or more sessions, as {@link sessionToLines} writes them; blank
 * lines and a `\r` before each newline are ignored). Only the shape of each record is checked
 * here: `importSession` checks every field before it writes.
 * @throws InvalidStoreInputError naming the line: not JSON, an unknown record, a message or tool
 * call before any session, a format version newer than this code reads.
 */
export function parseSessionLines(text: string): SessionExport[] {
  const sessions: SessionExport[] = [];
  const lines = text.split('\n');
  lines.forEach((raw, index) => {
    const line = index + 1;
    const trimmed = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (trimmed.trim() === '') return;
    const record = readRecord(trimmed, line);
    const current = sessions.at(-1);
    if (record.record === 'session') {
      if (record.format !== SESSION_LINES_FORMAT) {
        throw lineProblem(line, `format must be "${SESSION_LINES_FORMAT}"`);
      }
      if (typeof record.version !== 'number' || record.version > SESSION_LINES_VERSION) {
        throw lineProblem(
          line,
          `version ${String(record.version)} is not one this code reads (${SESSION_LINES_VERSION}); upgrade @yourtool/store`,
        );
      }
      sessions.push({
        session: record.session as SessionExport['session'],
        messages: [],
        tool_calls: [],
      });
    } else if (record.record === 'message' || record.record === 'tool_call') {
      if (!current) throw lineProblem(line, `a ${record.record} record before any session record`);
      if (record.record === 'message') {
        current.messages.push(record.message as SessionExport['messages'][number]);
      } else {
        current.tool_calls.push(record.tool_call as SessionExport['tool_calls'][number]);
      }
    } else {
      throw lineProblem(line, `unknown record ${JSON.stringify(record.record)}`);
    }
  });
  return sessions;
}
