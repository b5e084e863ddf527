import { describe, expect, it } from 'vitest';
import { checkJsonDepth, DEFAULT_MAX_JSON_DEPTH } from './exports.js';

/** `levels` objects nested in one another under `key` (levels 0: the scalar 1). */
function nest(levels: number, key = 'a'): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = { [key]: value };
  return value;
}

describe('checkJsonDepth', () => {
  it('counts each object or array as one level; scalars are level 0', () => {
    expect(checkJsonDepth(1)).toEqual({ ok: true, depth: 0 });
    expect(checkJsonDepth('text')).toEqual({ ok: true, depth: 0 });
    expect(checkJsonDepth(null)).toEqual({ ok: true, depth: 0 });
    expect(checkJsonDepth({})).toEqual({ ok: true, depth: 1 });
    expect(checkJsonDepth([])).toEqual({ ok: true, depth: 1 });
    expect(checkJsonDepth({ a: [1, { b: [] }], c: 'x' })).toEqual({ ok: true, depth: 4 });
    expect(checkJsonDepth([[[]], [[[[]]]]])).toEqual({ ok: true, depth: 5 });
  });

  it('accepts exactly maxDepth levels and refuses one more, naming where', () => {
    expect(checkJsonDepth(nest(5), { maxDepth: 5 })).toEqual({ ok: true, depth: 5 });
    const result = checkJsonDepth({ list: [0, nest(4)] }, { maxDepth: 5 });
    expect(result).toEqual({
      ok: false,
      maxDepth: 5,
      path: 'list[1].a.a.a',
      segments: ['list', 1, 'a', 'a', 'a'],
    });
  });

  it('has a generous default limit', () => {
    expect(DEFAULT_MAX_JSON_DEPTH).toBe(100);
    expect(checkJsonDepth(nest(DEFAULT_MAX_JSON_DEPTH)).ok).toBe(true);
    expect(checkJsonDepth(nest(DEFAULT_MAX_JSON_DEPTH + 1)).ok).toBe(false);
  });

  it('walks values far deeper than the call stack allows, without recursion', () => {
    // JSON.stringify itself overflows the stack on this value.
    const deep = nest(200_000);
    expect(() => JSON.stringify(deep)).toThrow(RangeError);
    const result = checkJsonDepth(deep);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.segments).toHaveLength(DEFAULT_MAX_JSON_DEPTH);
    expect(checkJsonDepth(deep, { maxDepth: 1_000_000 })).toEqual({ ok: true, depth: 200_000 });
  });

  it('writes keys that are not identifiers in brackets', () => {
    const result = checkJsonDepth({ 'a b': { 'x.y': { '': { ok_1: [[]] } } } }, { maxDepth: 5 });
    expect(result).toMatchObject({ ok: false, path: '["a b"]["x.y"][""].ok_1[0]' });
  });

  it('shortens very long keys in the printed path, not in segments', () => {
    const key = 'k'.repeat(500);
    const result = checkJsonDepth({ [key]: { b: {} } }, { maxDepth: 2 });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.segments).toEqual([key, 'b']);
      expect(result.path.length).toBeLessThan(100);
      expect(result.path).toContain('…');
    }
  });

  it('reports a cycle as too deep instead of looping forever', () => {
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    const result = checkJsonDepth(cyclic, { maxDepth: 10 });
    expect(result).toMatchObject({ ok: false, maxDepth: 10 });
  });

  it('checks a value with shared subtrees in linear time', () => {
    // 2^60 paths through 60 shared arrays: visiting every path would never finish.
    let shared: unknown = [];
    for (let i = 0; i < 60; i++) shared = [shared, shared];
    const started = Date.now();
    expect(checkJsonDepth(shared)).toEqual({ ok: true, depth: 61 });
    expect(checkJsonDepth(shared, { maxDepth: 30 }).ok).toBe(false);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('stops at a value deeper along its second branch after a shallow first', () => {
    expect(checkJsonDepth([{}, [[[]]]], { maxDepth: 3 })).toMatchObject({
      ok: false,
      path: '[1][0][0]',
    });
  });

  it('refuses a limit that is not a positive integer', () => {
    expect(() => checkJsonDepth({}, { maxDepth: 0 })).toThrow(RangeError);
    expect(() => checkJsonDepth({}, { maxDepth: 1.5 })).toThrow(/maxDepth/);
  });
});
