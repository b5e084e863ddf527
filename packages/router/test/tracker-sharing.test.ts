import type { ErrorClass, SharedAvailabilityRecord } from '@yourtool/core';
import { describe, expect, it } from 'vitest';
import { type AvailabilityListener, AvailabilityTracker } from '../src/index.js';

/**
 * The tracker's hooks for shared availability (decision 0183): it announces its own
 * transitions, adopts other instances' verdicts without shortening its own, and lets a call
 * probe a key only where the gate (the store's election) says so. The processes and stores
 * are exercised in the runtime's shared-availability tests.
 */
const MODEL = 'acme:model-a';
const KEY = `model:${MODEL}`;

function clock() {
  let t = 5_000_000;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

function failure(error_class: ErrorClass = 'server_error') {
  return {
    type: 'llm.call_failed' as const,
    request_id: 'r',
    session_id: null,
    model: MODEL,
    provider: 'acme',
    error_class,
    retry_count: 0,
    final: true,
    provider_status: 500,
    message: 'x',
    timestamp: '2026-01-01T00:00:00.000Z',
  };
}

function heard() {
  const events: string[] = [];
  const listener: AvailabilityListener = {
    unavailable: (key, ms, error) => events.push(`unavailable ${key} ${ms} ${error}`),
    probeSucceeded: (key) => events.push(`probeSucceeded ${key}`),
    probeReleased: (key) => events.push(`probeReleased ${key}`),
    notConfigured: (key) => events.push(`notConfigured ${key}`),
    configured: (key) => events.push(`configured ${key}`),
  };
  return { events, listener };
}

const record = (over: Partial<SharedAvailabilityRecord>): SharedAvailabilityRecord => ({
  key: KEY,
  state: 'unavailable',
  until: 0,
  probeOwner: null,
  probeStarted: 0,
  cooldownMs: 30_000,
  lastError: 'server_error',
  ...over,
});

describe('AvailabilityTracker sharing hooks', () => {
  it('announces its own transitions: unavailable, a failed probe doubled, not configured', () => {
    const c = clock();
    const { events, listener } = heard();
    const tracker = new AvailabilityTracker({ now: c.now, listener, cooldownMs: 1_000 });
    for (let i = 0; i < 3; i++) tracker.record(failure());
    c.advance(1_000);
    tracker.routed(MODEL);
    tracker.record(failure());
    tracker.record(failure('auth'));
    expect(events).toEqual([
      `unavailable ${KEY} 1000 server_error`,
      'unavailable provider:acme 1000 server_error',
      `unavailable ${KEY} 2000 server_error`,
      'unavailable provider:acme 2000 server_error',
      'notConfigured provider:acme',
    ]);
  });

  it("adopts another instance's deadline on its own clock, and never shortens a later one", () => {
    const c = clock();
    const tracker = new AvailabilityTracker({ now: c.now });
    // the store's clock is 1 h ahead of this process: only the remaining time matters
    const storeNow = c.now() + 3_600_000;
    tracker.adopt(record({ until: storeNow + 20_000 }), storeNow);
    expect(tracker.check(MODEL).reason).toMatch(/retry in 20 s/);
    tracker.adopt(record({ until: storeNow + 5_000 }), storeNow);
    expect(tracker.check(MODEL).reason).toMatch(/retry in 20 s/);
    tracker.adopt(record({ state: 'available' }), storeNow);
    expect(tracker.check(MODEL).ok).toBe(true);
  });

  it('lets a half-open key probe only where the gate allows', () => {
    const c = clock();
    let won = false;
    const tracker = new AvailabilityTracker({
      now: c.now,
      cooldownMs: 1_000,
      probeGate: () => won,
    });
    for (let i = 0; i < 3; i++) tracker.record(failure());
    c.advance(1_000);
    expect(tracker.halfOpenKeys().sort()).toEqual([KEY, 'provider:acme']);
    expect(tracker.check(MODEL)).toMatchObject({ ok: false, state: 'probing' });
    expect(tracker.check(MODEL).reason).toMatch(/another instance/);
    won = true;
    expect(tracker.check(MODEL)).toMatchObject({ ok: true, probe: true });
  });

  it("another instance's probe blocks calls here until it ends", () => {
    const c = clock();
    const tracker = new AvailabilityTracker({ now: c.now, probeGate: () => false });
    tracker.adopt(record({ state: 'probing', probeOwner: 'b', probeStarted: c.now() }), c.now());
    expect(tracker.check(MODEL)).toMatchObject({ ok: false, state: 'probing' });
  });
});
