import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ExpectedReply,
  expectedResponses,
  type FixtureRenderer,
  loadFixtureDirectory,
  renderFixtures,
  SCENARIOS,
  writeFixtureDirectory,
} from '../src/index.js';

/** A toy wire format: whole replies as they are, streams as one SSE event per block half. */
const renderer: FixtureRenderer = {
  streamFormat: 'sse',
  headers: { 'x-request-id': 'req_toy' },
  reply: (reply) => ({ content: reply.content, stop: reply.stop_reason, usage: reply.usage }),
  stream: (reply: ExpectedReply) => {
    const events = reply.content.flatMap((block) => {
      const json = JSON.stringify(block);
      const half = Math.floor(json.length / 2);
      return [json.slice(0, half), json.slice(half)];
    });
    const kept = reply.cut ? events.slice(0, 1) : [...events, '[DONE]'];
    return kept.map((data) => `data: ${JSON.stringify(data)}\n\n`);
  },
  error: (failure) => ({
    status: failure.failure === 'rate_limit' ? 429 : 500,
    headers:
      failure.retryAfterSeconds === undefined
        ? ({} as Record<string, string>)
        : { 'retry-after-ms': String(failure.retryAfterSeconds * 1000) },
    body: { error: failure.failure },
  }),
};

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('expectedResponses', () => {
  it('covers every scenario that needs a fixture of its own', () => {
    const expected = expectedResponses({
      thinking: true,
      images: true,
      structuredOutput: true,
      signedThinking: true,
    });
    const suiteSupplied = new Set(['error-other', 'error-malformed-reply']);
    const needed = SCENARIOS.filter(
      (s) => s.fixture !== null && !suiteSupplied.has(s.name) && !s.handRecorded,
    )
      .map((s) => s.name)
      .filter((name) => !name.endsWith('-signal'));
    const missing = needed.filter((name) => !(name in expected));
    // the -signal variants reuse the fixture of the scenario they mirror
    expect(missing).toEqual([]);
  });

  it('follows the declared features', () => {
    const sent = expectedResponses().sampling?.[0] as ExpectedReply;
    expect(sent.stop_reason).toBe('stop_sequence');
    const emulated = expectedResponses({ stopSequences: 'emulated' })
      .sampling?.[0] as ExpectedReply;
    expect(emulated.stop_reason).toBe('end_turn');
    expect(emulated.content[0]).toMatchObject({ text: expect.stringContaining('END and more') });
    expect(expectedResponses().thinking).toBeUndefined();
    expect(expectedResponses({ parallelToolCalls: false })['parallel-tool-calls']).toBeUndefined();
  });
});

describe('renderFixtures + writeFixtureDirectory', () => {
  it('writes files that loadFixtureDirectory reads back to the same responses', () => {
    const fixtures = renderFixtures(renderer);
    const dir = mkdtempSync(join(tmpdir(), 'conformance-fixtures-'));
    dirs.push(dir);
    const written = writeFixtureDirectory(dir, fixtures);
    expect(written).toContain(join('text', '1-response.json'));
    expect(written).toContain(join('cancel-mid-text', '1-stream.meta.json'));
    expect(written).toContain(join('error-network', '1-hangup.json'));
    expect(loadFixtureDirectory(dir)).toEqual(fixtures);
    const meta = JSON.parse(
      readFileSync(join(dir, 'cancel-mid-text', '1-stream.meta.json'), 'utf8'),
    );
    expect(meta).toMatchObject({ ending: 'stall' });
    const retry = fixtures['retry-after']?.[0];
    expect(retry).toMatchObject({ status: 429, headers: { 'retry-after-ms': '100' } });
    const cut = fixtures['stream-error-mid-stream']?.[0];
    expect(cut).toMatchObject({ type: 'stream', ending: 'destroy', chunks: [expect.any(String)] });
  });
});

describe('writeFixtureDirectory + loadFixtureDirectory', () => {
  it('keep a raw body that stalls and a stream with per-chunk pauses', () => {
    const fixtures = {
      'half-body': [
        {
          type: 'text' as const,
          status: 200,
          headers: {},
          body: '{"a":',
          ending: 'stall' as const,
        },
      ],
      paced: [
        {
          type: 'stream' as const,
          status: 200,
          headers: {},
          contentType: 'text/event-stream' as const,
          chunks: ['data: 1\n\n', 'data: 2\n\n'],
          delaysMs: [30, 0],
        },
      ],
    };
    const dir = mkdtempSync(join(tmpdir(), 'conformance-fixtures-'));
    dirs.push(dir);
    writeFixtureDirectory(dir, fixtures);
    expect(loadFixtureDirectory(dir)).toEqual(fixtures);
  });
});
