import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeBedrockFrame, encodeBedrockFrame } from '@yourtool/wire-formats';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ExpectedReply,
  type FixtureRenderer,
  loadFixtureDirectory,
  loadResponseFile,
  renderFixtures,
  writeFixtureDirectory,
} from '../src/index.js';

/** A toy binary format: one frame per text block half, like Bedrock's contentBlockDelta. */
const renderer: FixtureRenderer = {
  streamFormat: 'eventstream',
  headers: { 'x-amzn-requestid': 'req-toy' },
  reply: (reply) => ({ content: reply.content, stopReason: reply.stop_reason }),
  stream: (reply: ExpectedReply) => {
    const deltas = reply.content.flatMap((block) => {
      const text = JSON.stringify(block);
      const half = Math.floor(text.length / 2);
      return [text.slice(0, half), text.slice(half)];
    });
    const kept = reply.cut ? deltas.slice(0, 1) : deltas;
    return kept.map((text) =>
      encodeBedrockFrame({
        event: 'contentBlockDelta',
        payload: { contentBlockIndex: 0, delta: { text } },
      }),
    );
  },
  error: () => ({ status: 429, body: { message: 'slow down' } }),
};

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'eventstream-fixtures-'));
  dirs.push(dir);
  return dir;
};

describe('event-stream fixtures (.eventstream.jsonl)', () => {
  it('renderFixtures makes binary streams; written one frame a line, they load back the same', () => {
    const fixtures = renderFixtures(renderer);
    const stream = fixtures['text-stream']?.[0];
    expect(stream?.type).toBe('binary-stream');
    const dir = tempDir();
    const written = writeFixtureDirectory(dir, fixtures);
    expect(written).toContain(join('text-stream', '1-stream.eventstream.jsonl'));
    expect(written).toContain(join('cancel-mid-text', '1-stream.meta.json'));
    const lines = readFileSync(join(dir, 'text-stream', '1-stream.eventstream.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { event: string; payload: unknown });
    expect(lines[0]?.event).toBe('contentBlockDelta');
    expect(lines.length).toBe(stream?.type === 'binary-stream' ? stream.chunks.length : -1);
    const loaded = loadFixtureDirectory(dir);
    for (const [scenario, responses] of Object.entries(fixtures)) {
      expect(loaded[scenario], scenario).toEqual(responses);
    }
    expect(loaded['cancel-mid-text']?.[0]).toMatchObject({ ending: 'stall' });
  });

  it('reads exceptions and raw bytes, and names the file and line of a bad one', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'throttled'));
    const file = join(dir, 'throttled', '1-stream.eventstream.jsonl');
    const raw = encodeBedrockFrame({ event: 'messageStop', payload: { stopReason: 'end_turn' } });
    writeFileSync(
      file,
      [
        JSON.stringify({ event: 'messageStart', payload: { role: 'assistant' } }),
        '',
        JSON.stringify({ exception: 'throttlingException', payload: { message: 'Too many' } }),
        JSON.stringify({ raw: Buffer.from(raw.subarray(0, 10)).toString('base64') }),
      ].join('\n'),
    );
    writeFileSync(join(dir, 'throttled', '1-stream.meta.json'), '{"ending":"destroy"}');
    const response = loadResponseFile(file);
    expect(response).toMatchObject({
      type: 'binary-stream',
      contentType: 'application/vnd.amazon.eventstream',
      ending: 'destroy',
    });
    if (response.type !== 'binary-stream') throw new Error('a binary stream');
    expect(response.chunks).toHaveLength(3);
    expect(decodeBedrockFrame(response.chunks[1] ?? new Uint8Array())).toEqual({
      exception: 'throttlingException',
      payload: { message: 'Too many' },
    });
    expect(Buffer.from(response.chunks[2] ?? []).equals(Buffer.from(raw.subarray(0, 10)))).toBe(
      true,
    );
    // the writer keeps a cut frame as raw bytes
    const out = tempDir();
    writeFixtureDirectory(out, { throttled: [response] });
    expect(loadFixtureDirectory(out).throttled).toEqual([response]);

    writeFileSync(file, `${JSON.stringify({ event: 'messageStart' })}\n`);
    expect(() => loadResponseFile(file)).toThrow(/eventstream\.jsonl:1: "payload" must be/);
  });
});
