import { setTimeout as sleep } from 'node:timers/promises';
import { testPostgresUrl } from '@yourtool/testkit/postgres';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type Instance,
  killInstances,
  postgresDb,
  type SharedDb,
  sqliteDb,
  startInstance,
} from './instances.js';

/**
 * Availability shared across instances (issue 49, decision 0183), with real processes: each
 * child is an instance with its own tracker, sharing verdicts through one SQLite file or one
 * PostgreSQL schema.
 */
const MODEL = { model: 'acme:model-a', provider: 'acme' };
const REFRESH_MS = 200;
const K = 4;

const dbs: SharedDb[] = [];
afterEach(async () => {
  killInstances();
  await Promise.all(dbs.splice(0).map((db) => db.dispose()));
});

const makers = [
  { name: 'sqlite', make: sqliteDb },
  { name: 'postgres', make: () => postgresDb(testPostgresUrl()) },
];

async function instances(db: SharedDb, count: number, config: Record<string, unknown>) {
  return Promise.all(
    Array.from({ length: count }, (_, i) => startInstance(db, `i${i}`, { ...MODEL, ...config })),
  );
}

const unavailable = (l: { event: string; state?: string }) =>
  l.event === 'state' && l.state === 'unavailable';

describe.each(makers)('shared availability on $name', ({ make }) => {
  it(`${K - 1} other instances see one instance's failures within the refresh time`, async () => {
    const db = await make();
    dbs.push(db);
    const all = await instances(db, K, { refreshMs: REFRESH_MS, cooldownMs: 60_000 });
    const [failer, ...others] = all as [Instance, ...Instance[]];
    failer.send('fail');
    const failed = await failer.until((l) => l.event === 'failed');
    // the failing instance's own tracker reacts at once, before any store round trip
    expect(failed.state).toBe('unavailable');
    const seen = await Promise.all(others.map((o) => o.until(unavailable, 5_000)));
    const lags = seen.map((line) => line.t - failed.t);
    // one refresh period, plus a poll tick and the write's own round trip
    for (const lag of lags) expect(lag).toBeLessThan(REFRESH_MS + 300);
    for (const line of seen) expect(line.reason).toMatch(/retry in (59|60) s/);
  });

  it('after the cooldown exactly one instance probes, and then all are available', async () => {
    const db = await make();
    dbs.push(db);
    const all = await instances(db, K, { refreshMs: REFRESH_MS, cooldownMs: 1_000 });
    all[0]?.send('fail');
    const down = await Promise.all(all.map((o) => o.until(unavailable, 5_000)));
    for (const o of all) o.send('calls');
    await Promise.all(
      all.map((o, i) =>
        o.until((l) => l.event === 'state' && l.state === 'available' && l.t > (down[i]?.t ?? 0)),
      ),
    );
    // every instance keeps calling; give stragglers time to probe wrongly
    await sleep(REFRESH_MS * 4);
    const probes = all.flatMap((o) => o.lines.filter((l) => l.event === 'probe'));
    expect(probes).toHaveLength(1);
  });

  it('a killed prober is replaced after the probe timeout', async () => {
    const db = await make();
    dbs.push(db);
    const config = { refreshMs: REFRESH_MS, cooldownMs: 500, probeTimeoutMs: 1_500 };
    const all = await instances(db, 3, config);
    all[0]?.send('fail');
    await Promise.all(all.map((o) => o.until(unavailable, 5_000)));
    for (const o of all) o.send('hang');
    const first = await Promise.any(all.map((o) => o.until((l) => l.event === 'probe')));
    const prober = all.find((o) => o.lines.includes(first)) as Instance;
    prober.child.kill('SIGKILL');
    const rest = all.filter((o) => o !== prober);
    const second = await Promise.any(rest.map((o) => o.until((l) => l.event === 'probe', 10_000)));
    expect(second.t - first.t).toBeGreaterThanOrEqual(1_500 - 50);
    const probes = rest.flatMap((o) => o.lines.filter((l) => l.event === 'probe'));
    expect(probes).toHaveLength(1);
  });

  it('a restarted instance keeps the cooldown still running', async () => {
    const db = await make();
    dbs.push(db);
    const [before] = await instances(db, 1, { refreshMs: REFRESH_MS, cooldownMs: 30_000 });
    const failSentAt = Date.now();
    before?.send('fail');
    await before?.until((l) => l.event === 'failed');
    await sleep(100); // the write is queued after the local verdict
    before?.send('exit');
    await before?.until((l) => l.event === 'closed');
    await sleep(1_000);
    const after = await startInstance(db, 'restarted', { ...MODEL, refreshMs: REFRESH_MS });
    const readyAt = Date.now();
    const ready = after.lines.find((l) => l.event === 'ready');
    expect(ready?.state).toBe('unavailable');
    // the deadline is absolute: what was left of the 30 s (at least a second went by), not a
    // fresh cooldown; how much went by is measured, as a loaded machine stretches it
    const left = Number(/retry in (\d+) s/.exec(String(ready?.reason))?.[1]);
    expect(left).toBeLessThanOrEqual(29);
    expect(left).toBeGreaterThanOrEqual(Math.floor(30 - (readyAt - failSentAt) / 1_000) - 1);
  });
});
