import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  InvalidStoreInputError,
  parseSessionLines,
  SESSION_LINES_VERSION,
  type SessionExport,
  sessionToLines,
} from '../src/index.js';

const session = {
  id: 'sess_1',
  workspace_path: '/w',
  active_model: null,
  routing_policy: null,
  schema_version: 1,
  created_at: '2026-01-01T00:00:00.000001Z',
  updated_at: '2026-01-01T00:00:00.000002Z',
};

function problemOf(text: string): string {
  try {
    parseSessionLines(text);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidStoreInputError);
    const issue = (error as InvalidStoreInputError).issues[0];
    return `${issue?.path}: ${issue?.message}`;
  }
  throw new Error('no error');
}

describe('canonicalJson', () => {
  it('sorts keys at every level, whatever order they were built in', () => {
    const a = canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: 'é' } });
    const b = canonicalJson({ a: { c: 'é', d: [3, { y: 2, z: 1 }] }, b: 1 });
    expect(a).toBe('{"a":{"c":"é","d":[3,{"y":2,"z":1}]},"b":1}');
    expect(b).toBe(a);
  });

  it('writes what JSON.stringify writes for scalars, undefined as JSON does', () => {
    expect(canonicalJson([1e21, 0.1, -0, 'a\u2028"', null, true, undefined])).toBe(
      JSON.stringify([1e21, 0.1, -0, 'a\u2028"', null, true, null]),
    );
    expect(canonicalJson({ a: undefined, b: 2 })).toBe('{"b":2}');
  });

  it('takes any depth without a stack overflow', () => {
    let deep: unknown = 'end';
    for (let i = 0; i < 100_000; i++) deep = { k: deep };
    expect(canonicalJson(deep).length).toBe(100_000 * 6 + 5);
  });
});

describe('session lines', () => {
  it('reads back what it writes, several sessions in one stream', () => {
    const one: SessionExport = { session, messages: [], tool_calls: [] };
    const two: SessionExport = {
      session: { ...session, id: 'sess_2' },
      messages: [],
      tool_calls: [],
    };
    const text = sessionToLines(one) + sessionToLines(two);
    expect(text).toBe(
      `{"format":"yourtool.session","record":"session","session":{"active_model":null,"created_at":"2026-01-01T00:00:00.000001Z","id":"sess_1","routing_policy":null,"schema_version":1,"updated_at":"2026-01-01T00:00:00.000002Z","workspace_path":"/w"},"version":${SESSION_LINES_VERSION}}\n${sessionToLines(two)}`,
    );
    expect(parseSessionLines(text)).toEqual([one, two]);
    expect(parseSessionLines(`\r\n${text.replaceAll('\n', '\r\n')}\n\n`)).toEqual([one, two]);
  });

  it('names the line of each problem', () => {
    const head = sessionToLines({ session, messages: [], tool_calls: [] });
    expect(problemOf('{"record":"message","message":{}}')).toBe(
      'line 1: a message record before any session record',
    );
    expect(problemOf(`${head}not json`)).toMatch(/^line 2: not valid JSON/);
    expect(problemOf(`${head}[1]`)).toBe('line 2: must be a JSON object');
    expect(problemOf(`${head}{"record":"note"}`)).toBe('line 2: unknown record "note"');
    expect(problemOf(head.replace('"version":1', '"version":2'))).toMatch(
      /^line 1: version 2 is not one this code reads/,
    );
    expect(problemOf(head.replace('yourtool.session', 'other'))).toBe(
      'line 1: format must be "yourtool.session"',
    );
  });
});
