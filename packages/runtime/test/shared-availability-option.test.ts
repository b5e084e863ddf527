import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { MemorySessionStore } from '@yourtool/core/memory-store';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createRuntime,
  InvalidRuntimeOptionError,
  type Runtime,
  RuntimeSetupError,
} from '../src/index.js';

/**
 * createRuntime's `sharedAvailability` option (decision 0183): two runtimes on one store file
 * see each other's verdicts; off by default; refused on a store one process holds.
 */
const MODELS = `
adapters:
  anthropic: { type: anthropic, api_key: sk-ant-shared-0000, base_url: http://127.0.0.1:9 }
models:
  anthropic:claude-sonnet-4-6: { adapter: anthropic, wire_name: claude-sonnet-4-6 }
`;
const MODEL = 'anthropic:claude-sonnet-4-6';

const opened: Runtime[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((r) => r.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function storeUrl(): string {
  const dir = mkdtempSync(join(tmpdir(), 'runtime-shared-'));
  dirs.push(dir);
  return `sqlite:${join(dir, 'sessions.db')}`;
}

async function runtime(store: string, shared: boolean): Promise<Runtime> {
  const made = await createRuntime({
    models: MODELS,
    store,
    logger: false,
    ...(shared ? { sharedAvailability: { refreshMs: 50 } } : {}),
  });
  opened.push(made);
  return made;
}

/** Three final server errors on the runtime's bus, as the call runner reports them. */
function failThrice(target: Runtime): void {
  for (let i = 0; i < 3; i++) {
    target.bus.emit({
      type: 'llm.call_failed',
      request_id: `r${i}`,
      session_id: null,
      model: MODEL,
      provider: 'anthropic',
      error_class: 'server_error',
      retry_count: 0,
      final: true,
      provider_status: 500,
      message: 'HTTP 500',
      timestamp: new Date().toISOString(),
    });
  }
}

describe('createRuntime sharedAvailability', () => {
  it("turned on, a runtime sees another's outage within the refresh time", async () => {
    const url = storeUrl();
    const a = await runtime(url, true);
    const b = await runtime(url, true);
    failThrice(a);
    expect(a.availability.state({ model: MODEL })).toBe('unavailable');
    const started = Date.now();
    while (b.availability.state({ model: MODEL }) !== 'unavailable') {
      expect(Date.now() - started).toBeLessThan(1_000);
      await sleep(10);
    }
  });

  it('off by default: each runtime keeps its own verdicts', async () => {
    const url = storeUrl();
    const a = await runtime(url, false);
    const b = await runtime(url, false);
    failThrice(a);
    await sleep(200);
    expect(a.availability.state({ model: MODEL })).toBe('unavailable');
    expect(b.availability.state({ model: MODEL })).toBe('available');
  });

  it('is refused on the in-memory store, which one process holds', async () => {
    const error = await createRuntime({
      models: MODELS,
      store: new MemorySessionStore(),
      logger: false,
      sharedAvailability: true,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RuntimeSetupError);
    expect((error as Error).message).toMatch(
      /sharedAvailability needs a store the instances share/,
    );
  });

  it.each([
    ['sharedAvailability.refreshMs', { refreshMs: 5 }],
    ['sharedAvailability.instanceId', { instanceId: '' }],
    ['sharedAvailability.refresh', { refresh: 100 }],
    ['sharedAvailability', 'yes'],
  ])('a bad value names %s', async (option, value) => {
    const error = await createRuntime({
      models: MODELS,
      logger: false,
      sharedAvailability: value as never,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidRuntimeOptionError);
    expect((error as InvalidRuntimeOptionError).option).toBe(option);
  });
});
