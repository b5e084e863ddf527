import { describe, expect, it } from 'vitest';
import {
  createUlidGenerator,
  epochMicrosToTimestamp,
  formatModelId,
  InvalidModelIdError,
  isCanonicalToolUseId,
  isUlid,
  newMessageId,
  newRequestId,
  newToolUseId,
  nowTimestamp,
  parseModelId,
  timestampToEpochMicros,
  ulidTime,
} from './exports.js';

describe('ULIDs', () => {
  it('stay in creation order under a burst within one millisecond', () => {
    const next = createUlidGenerator();
    const fixed = 1_760_000_000_000;
    const ids = Array.from({ length: 10_000 }, () => next(fixed));
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    expect(ids.every((id) => ulidTime(id) === fixed)).toBe(true);
  });

  it('stay in creation order across the shared generator', () => {
    const ids = Array.from({ length: 5_000 }, () => newMessageId());
    expect([...ids].sort()).toEqual(ids);
    expect(ids.every(isUlid)).toBe(true);
  });

  it('prefix tool use and request ids', () => {
    const tu = newToolUseId();
    expect(tu).toMatch(/^tu_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(isCanonicalToolUseId(tu)).toBe(true);
    expect(isCanonicalToolUseId('toolu_01ABC')).toBe(false);
    expect(newRequestId()).toMatch(/^req_[0-9A-Z]{26}$/);
  });
});

describe('timestamps', () => {
  it('keep microseconds through format and parse', () => {
    const micros = 1_746_705_600_123_456;
    const iso = epochMicrosToTimestamp(micros);
    expect(iso).toBe('2025-05-08T12:00:00.123456Z');
    expect(timestampToEpochMicros(iso)).toBe(micros);
  });

  it('format like Date for any microsecond, in any order (the memo of the last second)', () => {
    // Date's own millisecond text, with the three sub-millisecond digits appended
    const byDate = (micros: number) => {
      const ms = Math.floor(micros / 1000);
      const iso = new Date(ms).toISOString();
      return `${iso.slice(0, 23)}${String(micros - ms * 1000).padStart(3, '0')}Z`;
    };
    const base = 1_746_705_599_999_000;
    const values = [0, -1, -1_000_001, 999_999, 1_000_000, base, base + 999, base + 1_000];
    let seed = 7;
    for (let i = 0; i < 2_000; i++) {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      // within a few seconds of `base` (the memo's case) and anywhere within ±230 years of 1970
      values.push(base + (seed % 5_000_000), (seed - 2 ** 30) * 7_000_000);
    }
    for (const micros of values) expect(epochMicrosToTimestamp(micros)).toBe(byDate(micros));
  });

  it('parse offsets and short fractions', () => {
    expect(timestampToEpochMicros('2025-05-08T14:00:00.5+02:00')).toBe(1_746_705_600_500_000);
    expect(() => timestampToEpochMicros('yesterday')).toThrow(/not an ISO-8601 timestamp/);
  });

  it('never repeat or go backwards', () => {
    const stamps = Array.from({ length: 2_000 }, () => timestampToEpochMicros(nowTimestamp()));
    for (let i = 1; i < stamps.length; i++) expect(stamps[i]!).toBeGreaterThan(stamps[i - 1]!);
  });
});

describe('model ids', () => {
  it('split at the first colon only', () => {
    expect(parseModelId('anthropic:claude-sonnet-4-6')).toEqual({
      provider: 'anthropic',
      name: 'claude-sonnet-4-6',
    });
    expect(parseModelId('ollama:qwen3:8b')).toEqual({ provider: 'ollama', name: 'qwen3:8b' });
    expect(parseModelId('openrouter:deepseek/deepseek-v3')).toEqual({
      provider: 'openrouter',
      name: 'deepseek/deepseek-v3',
    });
    expect(parseModelId('ollama:hf.co/org/model:Q4_K_M')).toEqual({
      provider: 'ollama',
      name: 'hf.co/org/model:Q4_K_M',
    });
  });

  it('format is the inverse of parse', () => {
    for (const id of ['ollama:qwen3:8b', 'openrouter:deepseek/deepseek-v3', 'openai:gpt-5']) {
      expect(formatModelId(parseModelId(id))).toBe(id);
    }
    expect(formatModelId('ollama', 'llama-3.3-70b')).toBe('ollama:llama-3.3-70b');
  });

  it('reject ids without a provider, with an empty name or a bad provider', () => {
    for (const bad of ['gpt-5', ':gpt-5', 'openai:', 'Open AI:gpt-5', 'openai: gpt-5']) {
      expect(() => parseModelId(bad)).toThrowError(InvalidModelIdError);
    }
    expect(() => formatModelId('openai', '')).toThrowError(InvalidModelIdError);
  });
});
