import { setTimeout as sleep } from 'node:timers/promises';
import { supportsSharedAvailability } from '@yourtool/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidStoreInputError, type SqlSessionStore } from '../src/index.js';
import { type Target, targets } from './helpers/targets.js';

/**
 * The `availability` table (migration 0007, decision 0183) through `SqlAvailabilityStore`:
 * deadlines only move later, one of many concurrent claims wins a probe, only the prober ends
 * it, and a silent probe is taken over after its timeout.
 */
describe.each(targets())('shared availability on $name', ({ make }) => {
  const target: Target = make();
  const stores: SqlSessionStore[] = [];
  beforeAll(async () => {
    for (let i = 0; i < 4; i++) stores.push(await target.open());
  });
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await target.dispose();
  });
  const shared = (i = 0) => (stores[i] as SqlSessionStore).sharedAvailability();

  it('is a capability of the store', () => {
    expect(supportsSharedAvailability(stores[0] as SqlSessionStore)).toBe(true);
  });

  it('a repeated failure with a shorter cooldown never shortens the deadline', async () => {
    const key = 'model:acme:repeat';
    const first = await shared(0).markUnavailable({
      key,
      cooldownMs: 60_000,
      lastError: 'server_error',
    });
    const second = await shared(1).markUnavailable({
      key,
      cooldownMs: 1_000,
      lastError: 'rate_limit',
    });
    expect(second.until).toBe(first.until);
    expect(second.cooldownMs).toBe(60_000);
    expect(second.lastError).toBe('rate_limit');
    const { now, records } = await shared(2).readAvailability();
    const seen = records.find((r) => r.key === key);
    expect(seen?.state).toBe('unavailable');
    expect((seen?.until ?? 0) - now).toBeGreaterThan(58_000);
  });

  it('exactly one of concurrent claims wins a probe, and none before the deadline', async () => {
    const key = 'provider:acme-elect';
    await shared(0).markUnavailable({ key, cooldownMs: 300, lastError: 'network' });
    expect(await shared(1).claimProbe(key, 'early', 60_000)).toBe(false);
    await sleep(350);
    const wins = await Promise.all(
      Array.from({ length: 12 }, (_, i) => shared(i % 4).claimProbe(key, `i${i}`, 60_000)),
    );
    expect(wins.filter(Boolean)).toHaveLength(1);
    const owner = `i${wins.indexOf(true)}`;
    const record = (await shared(2).readAvailability()).records.find((r) => r.key === key);
    expect(record).toMatchObject({ state: 'probing', probeOwner: owner });
    // only the prober ends the probe
    await shared(3).probeSucceeded(key, 'someone-else');
    expect((await shared(0).readAvailability()).records.find((r) => r.key === key)?.state).toBe(
      'probing',
    );
    await shared(3).probeSucceeded(key, owner);
    expect((await shared(0).readAvailability()).records.find((r) => r.key === key)?.state).toBe(
      'available',
    );
  });

  it('a probe silent past its timeout is taken over by one other instance', async () => {
    const key = 'model:acme:hang';
    await shared(0).markUnavailable({ key, cooldownMs: 0, lastError: 'server_error' });
    expect(await shared(0).claimProbe(key, 'dead', 300)).toBe(true);
    expect(await shared(1).claimProbe(key, 'b', 300)).toBe(false);
    await sleep(350);
    const wins = await Promise.all(
      [shared(1), shared(2), shared(3)].map((s, i) => s.claimProbe(key, `t${i}`, 300)),
    );
    expect(wins.filter(Boolean)).toHaveLength(1);
  });

  it('a released probe lets the next claim win at once; not configured stays until cleared', async () => {
    const key = 'provider:acme-release';
    await shared(0).markUnavailable({ key, cooldownMs: 0, lastError: 'server_error' });
    expect(await shared(0).claimProbe(key, 'a', 60_000)).toBe(true);
    await shared(0).releaseProbe(key, 'a');
    expect(await shared(1).claimProbe(key, 'b', 60_000)).toBe(true);

    const auth = 'provider:acme-auth';
    await shared(0).markNotConfigured(auth);
    await shared(1).markUnavailable({ key: auth, cooldownMs: 1_000, lastError: 'network' });
    const read = async () =>
      (await shared(2).readAvailability()).records.find((r) => r.key === auth);
    expect((await read())?.state).toBe('not_configured');
    await shared(2).clearAvailability(auth);
    expect(await read()).toBeUndefined();
  });

  it('refuses a key that is not a provider or model key, naming it', async () => {
    const error = await shared(0)
      .markUnavailable({ key: 'acme', cooldownMs: 1, lastError: null })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidStoreInputError);
    expect(String((error as Error).message)).toMatch(/key/);
    await expect(
      shared(0).markUnavailable({ key: 'model:a:b', cooldownMs: -1, lastError: null }),
    ).rejects.toThrow(/cooldownMs/);
  });
});
