import { describe, expect, it } from 'vitest';
import {
  createMemoryLogger,
  MessageParseError,
  parseMessage,
  serializeMessage,
} from './exports.js';
import { msg } from './helpers.js';

function stored() {
  return JSON.parse(serializeMessage(msg('user', [{ type: 'text', text: 'hi' }])));
}

describe('parseMessage: tolerant reads', () => {
  it('skips an unknown content block type with a WARN naming its path and type', () => {
    const raw = stored();
    raw.content.push({ type: 'audio', data: 'UklGR...', media_type: 'audio/wav' });
    raw.content.push({ type: 'text', text: 'after' });
    const logger = createMemoryLogger();
    const message = parseMessage(raw, { logger });
    expect(message.content).toEqual([
      { type: 'text', text: 'hi' },
      { type: 'text', text: 'after' },
    ]);
    const [warning] = logger.warnings();
    expect(warning?.obj).toMatchObject({
      event: 'tolerant_read',
      path: 'content[1]',
      block_type: 'audio',
    });
  });

  it('skips unknown block types inside tool results too', () => {
    const raw = JSON.parse(
      serializeMessage(
        msg(
          'tool',
          [
            {
              type: 'tool_result',
              tool_use_id: 'tu_1',
              content: [{ type: 'text', text: 'ok' }],
              is_error: false,
            },
          ],
          {
            parent_tool_use_id: 'tu_1',
          },
        ),
      ),
    );
    raw.content[0].content.push({ type: 'video', url: 'x' });
    const logger = createMemoryLogger();
    const message = parseMessage(raw, { logger });
    expect(message.content[0]).toMatchObject({ content: [{ type: 'text', text: 'ok' }] });
    expect(logger.warnings()[0]?.obj).toMatchObject({
      path: 'content[0].content[1]',
      block_type: 'video',
    });
  });

  it('preserves unknown metadata fields, with a WARN', () => {
    const raw = stored();
    raw.metadata.trace_id = 'abc';
    raw.metadata.future_flags = { a: 1 };
    const logger = createMemoryLogger();
    const message = parseMessage(raw, { logger });
    expect(message.metadata).toMatchObject({ trace_id: 'abc', future_flags: { a: 1 } });
    expect(logger.warnings().map((w) => w.obj.field)).toEqual(['trace_id', 'future_flags']);
    // and they survive being written back
    expect(JSON.parse(serializeMessage(message)).metadata.trace_id).toBe('abc');
  });

  it('ignores unknown fields on known blocks, with a WARN', () => {
    const raw = stored();
    raw.content[0].citations = [];
    const logger = createMemoryLogger();
    expect(parseMessage(raw, { logger }).content[0]).toEqual({ type: 'text', text: 'hi' });
    expect(logger.warnings()[0]?.obj).toMatchObject({ path: 'content[0].citations' });
  });

  it('reads a newer schema_version tolerantly by default, and rejects it on request', () => {
    const raw = { ...stored(), schema_version: 2 };
    const logger = createMemoryLogger();
    expect(parseMessage(raw, { logger }).schema_version).toBe(2);
    expect(logger.warnings()[0]?.obj).toMatchObject({ path: 'schema_version' });
    expect(() => parseMessage(raw, { newerSchemaVersion: 'reject' })).toThrow(
      /schema_version: version 2 is newer/,
    );
  });

  it('does not warn about a clean message', () => {
    const logger = createMemoryLogger();
    parseMessage(stored(), { logger });
    expect(logger.records).toEqual([]);
  });
});

describe('parseMessage: created_at is normalized where it enters', () => {
  it.each([
    ['2026-05-08T14:00:00+02:00', '2026-05-08T12:00:00.000000Z'],
    ['2026-05-08T12:00:00.1Z', '2026-05-08T12:00:00.100000Z'],
    ['2026-05-08T12:00:00.123456789Z', '2026-05-08T12:00:00.123456Z'],
    ['2026-05-08T00:30:00.5-01:00', '2026-05-08T01:30:00.500000Z'],
    ['2026-05-08T00:30:00.000001+00:45', '2026-05-07T23:45:00.000001Z'],
    ['2026-05-08T12:00:00.123456Z', '2026-05-08T12:00:00.123456Z'],
  ])('%s reads as %s (UTC, microseconds)', (given, expected) => {
    const raw = stored();
    raw.created_at = given;
    expect(parseMessage(raw).created_at).toBe(expected);
  });
});

describe('parseMessage: malformed input', () => {
  it('names the path of a malformed known block', () => {
    const raw = stored();
    raw.content.push({ type: 'tool_use', id: 'tu_1', name: 'read_file', input: 'README.md' });
    expect(() => parseMessage(raw)).toThrowError(MessageParseError);
    const error = (() => {
      try {
        parseMessage(raw);
      } catch (e) {
        return e as MessageParseError;
      }
    })();
    expect(error?.issues).toEqual([{ path: 'content[1].input', message: expect.any(String) }]);
    expect(error?.message).toContain(raw.id);
  });

  it('names a bad image source kind', () => {
    const raw = stored();
    raw.content.push({
      type: 'image',
      source: { kind: 'ftp', data: 'x' },
      media_type: 'image/png',
    });
    expect(() => parseMessage(raw)).toThrow(/content\[1\]\.source\.kind/);
  });

  it('reports a missing required field and a bad role together', () => {
    const raw = stored();
    delete raw.session_id;
    raw.role = 'robot';
    try {
      parseMessage(raw);
      expect.unreachable();
    } catch (error) {
      const paths = (error as MessageParseError).issues.map((i) => i.path).sort();
      expect(paths).toEqual(['role', 'session_id']);
    }
  });

  it('rejects non-JSON strings and non-objects', () => {
    expect(() => parseMessage('{nope')).toThrow(/\$: not valid JSON/);
    expect(() => parseMessage([1, 2])).toThrow(/must be a JSON object/);
  });

  it('accepts a numeric cost from foreign data and keeps it as a decimal string', () => {
    const raw = JSON.parse(serializeMessage(msg('user', [{ type: 'text', text: 'x' }])));
    raw.metadata.usage = {
      input_tokens: 1,
      output_tokens: 1,
      cost_usd: 0.000654,
      pricing_version: 'v1',
      latency_ms: 3,
    };
    expect(parseMessage(raw).metadata.usage?.cost_usd).toBe('0.000654');
  });
});
