import { fileURLToPath } from 'node:url';
import {
  type LoopbackServer,
  loadFixtureDirectory,
  startLoopbackServer,
} from '@yourtool/conformance';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRuntime, createStderrLogger, type Runtime } from '../src/index.js';
import { servedAs } from './served-as.js';

/**
 * The warnings the contracts require are seen (issue 24, item 10): createRuntime writes WARN and
 * above to stderr, one JSON line each, keys redacted; `logger: false` is silence.
 */

const anthropic = loadFixtureDirectory(
  fileURLToPath(new URL('../../anthropic/test/fixtures', import.meta.url)),
);
const KEY = 'sk-ant-api03-StderrLoggerTestKey0000000000000000';

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());
const opened: Runtime[] = [];
afterEach(async () => {
  server.reset();
  vi.restoreAllMocks();
  await Promise.all(opened.splice(0).map((r) => r.close()));
});

// a model the price table does not know: its turn logs `usage_unpriced` at WARN
const models = () => `
adapters:
  anthropic: { type: anthropic, api_key: ${KEY}, base_url: ${server.url}, max_retries: 0 }
models:
  anthropic:claude-unpriced-x: { adapter: anthropic, wire_name: claude-sonnet-4-6, aliases: [x] }
`;

async function turnWritingTo(logger?: false): Promise<string[]> {
  const lines: string[] = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  const runtime = await createRuntime({
    models: models(),
    routing: 'global_default: x',
    ...(logger === false ? { logger } : {}),
  });
  opened.push(runtime);
  const text = anthropic['text-stream'];
  if (!text) throw new Error('no text-stream fixture');
  // served by the unpriced model too (a reply is priced by the model that served it)
  server.enqueue(...servedAs(text, 'claude-unpriced-x'));
  const session = await runtime.sessions.createSession({ workspace_path: '/w' });
  await runtime.sessions.sendAndWait(session.id, 'Say hello.');
  // a line naming the key, as an adapter error might
  runtime.logger.warn({ event: 'probe', detail: `refused key ${KEY}` }, 'probe');
  vi.restoreAllMocks();
  return lines;
}

describe('createRuntime logs WARN and above to stderr by default', () => {
  it('one JSON line per warning, with level, time, message and fields, keys redacted', async () => {
    const lines = await turnWritingTo();
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const line of lines) {
      expect(line.endsWith('\n')).toBe(true);
      expect(line.slice(0, -1)).not.toContain('\n');
      expect(line).not.toContain(KEY);
    }
    const entries = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(entries).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        event: 'usage_unpriced',
        model: 'anthropic:claude-unpriced-x',
        time: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
        msg: expect.stringContaining('no price for anthropic:claude-unpriced-x'),
      }),
    );
    expect(entries.at(-1)).toMatchObject({ event: 'probe', detail: 'refused key [REDACTED]' });
  });

  it('logger: false writes nothing', async () => {
    expect(await turnWritingTo(false)).toEqual([]);
  });

  it('writes nothing below its level, and survives values JSON cannot hold', () => {
    const lines: string[] = [];
    const logger = createStderrLogger({ write: (l) => lines.push(l), now: () => 0 });
    logger.info?.({ event: 'quiet' }, 'not written');
    const cycle: Record<string, unknown> = { big: 10n };
    cycle.self = cycle;
    logger.error?.({ event: 'loud', cycle, cause: new Error('boom') }, 'written');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] as string)).toEqual({
      level: 'error',
      time: '1970-01-01T00:00:00.000Z',
      msg: 'written',
      event: 'loud',
      cycle: { big: '10', self: '[circular]' },
      cause: { name: 'Error', message: 'boom' },
    });
  });
});
