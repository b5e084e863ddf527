import { type BusEvent, createEventBus, type ErrorClass } from '@yourtool/core';
import { describe, expect, it } from 'vitest';
import { AvailabilityTracker } from '../src/index.js';

const MODEL = 'anthropic:claude-sonnet-4-6';
const OTHER = 'anthropic:claude-haiku-4-5';

function failed(model: string, error_class: ErrorClass, final = true): BusEvent {
  return {
    type: 'llm.call_failed',
    request_id: 'r',
    session_id: null,
    model,
    provider: model.split(':')[0] ?? '',
    error_class,
    retry_count: 2,
    final,
    provider_status: null,
    message: 'x',
    timestamp: '2026-01-01T00:00:00.000000Z',
  };
}
function completed(model: string): BusEvent {
  return {
    type: 'llm.call_completed',
    request_id: 'r',
    session_id: null,
    model,
    provider: model.split(':')[0] ?? '',
    stop_reason: 'end_turn',
    usage: {
      input_tokens: 1,
      output_tokens: 1,
      cached_input_tokens: 0,
      cache_creation_input_tokens: 0,
    },
    latency_ms: 1,
    retry_count: 0,
    timestamp: '2026-01-01T00:00:00.000000Z',
  };
}

function clock() {
  let t = 1_000_000;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('AvailabilityTracker', () => {
  it('stays available under fewer failures than the threshold, or failures spread out', () => {
    const c = clock();
    const tracker = new AvailabilityTracker({
      now: c.now,
      failureThreshold: 3,
      failureWindowMs: 10_000,
    });
    tracker.record(failed(MODEL, 'rate_limit'));
    tracker.record(failed(MODEL, 'rate_limit'));
    expect(tracker.check(MODEL).ok).toBe(true);
    c.advance(11_000);
    tracker.record(failed(MODEL, 'rate_limit'));
    expect(tracker.check(MODEL).ok, 'old failures left the window').toBe(true);
  });

  it('ignores attempt-level failures the adapter retried, and classes that say nothing about health', () => {
    const tracker = new AvailabilityTracker({ failureThreshold: 2 });
    tracker.record(failed(MODEL, 'rate_limit', false));
    tracker.record(failed(MODEL, 'rate_limit', false));
    tracker.record(failed(MODEL, 'invalid_request'));
    tracker.record(failed(MODEL, 'invalid_request'));
    expect(tracker.check(MODEL).ok).toBe(true);
  });

  it('makes a model unavailable for a cooldown, then lets one probe through', () => {
    const c = clock();
    const tracker = new AvailabilityTracker({
      now: c.now,
      failureThreshold: 3,
      cooldownMs: 30_000,
    });
    for (let i = 0; i < 3; i++) tracker.record(failed(MODEL, 'rate_limit'));
    expect(tracker.check(MODEL)).toMatchObject({
      ok: false,
      state: 'unavailable',
      reason: expect.stringContaining('retry in 30 s'),
    });
    expect(tracker.check(OTHER).ok, 'rate limits count against the model only').toBe(true);
    c.advance(29_999);
    expect(tracker.check(MODEL).ok).toBe(false);
    c.advance(1);
    expect(tracker.check(MODEL)).toMatchObject({ ok: true, probe: true, state: 'half_open' });
    tracker.routed(MODEL);
    expect(tracker.check(MODEL), 'one probe at a time').toMatchObject({
      ok: false,
      state: 'probing',
    });
    tracker.record(completed(MODEL));
    expect(tracker.check(MODEL)).toMatchObject({ ok: true, probe: false, state: 'available' });
  });

  it('doubles the cooldown when the probe fails', () => {
    const c = clock();
    const tracker = new AvailabilityTracker({
      now: c.now,
      failureThreshold: 1,
      cooldownMs: 1000,
      maxCooldownMs: 3000,
    });
    tracker.record(failed(MODEL, 'server_error'));
    c.advance(1000);
    tracker.routed(MODEL);
    tracker.record(failed(MODEL, 'server_error'));
    c.advance(1999);
    expect(tracker.check(MODEL).ok).toBe(false);
    c.advance(1);
    expect(tracker.check(MODEL).ok).toBe(true);
    tracker.routed(MODEL);
    tracker.record(failed(MODEL, 'server_error'));
    c.advance(2999);
    expect(tracker.check(MODEL).ok, 'capped at maxCooldownMs').toBe(false);
    c.advance(1);
    expect(tracker.check(MODEL).ok).toBe(true);
  });

  it('takes a whole provider down on sustained network or server failures', () => {
    const tracker = new AvailabilityTracker({ now: () => 0, failureThreshold: 3 });
    tracker.record(failed(MODEL, 'network'));
    tracker.record(failed(OTHER, 'network'));
    tracker.record(failed(MODEL, 'server_error'));
    expect(tracker.state({ provider: 'anthropic' })).toBe('unavailable');
    expect(tracker.check(OTHER)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('provider anthropic'),
    });
    expect(tracker.check('openai:gpt-5').ok).toBe(true);
  });

  it('marks the provider not configured on an auth failure until reconfigured', () => {
    const c = clock();
    const tracker = new AvailabilityTracker({ now: c.now });
    tracker.record(failed(MODEL, 'auth'));
    c.advance(3_600_000);
    expect(tracker.check(OTHER)).toMatchObject({ ok: false, state: 'not_configured' });
    tracker.record(completed(OTHER));
    expect(tracker.check(OTHER).ok, 'a success elsewhere does not clear it').toBe(false);
    tracker.markConfigured('anthropic');
    expect(tracker.check(OTHER).ok).toBe(true);
  });

  it('listens to a bus', () => {
    const bus = createEventBus();
    const tracker = new AvailabilityTracker({ failureThreshold: 1 });
    const off = tracker.connect(bus);
    bus.emit(failed(MODEL, 'rate_limit'));
    expect(tracker.check(MODEL).ok).toBe(false);
    off();
  });

  describe('a probe resolves or expires', () => {
    /** A tracker whose model (threshold 1, cooldown 1 s) is half-open and now probing. */
    function probing(options: { probeTimeoutMs?: number; provider?: boolean } = {}) {
      const c = clock();
      const tracker = new AvailabilityTracker({
        now: c.now,
        failureThreshold: 1,
        cooldownMs: 1000,
        ...(options.probeTimeoutMs !== undefined ? { probeTimeoutMs: options.probeTimeoutMs } : {}),
      });
      tracker.record(failed(MODEL, options.provider ? 'server_error' : 'rate_limit'));
      c.advance(1000);
      expect(tracker.check(MODEL)).toMatchObject({ ok: true, probe: true });
      tracker.routed(MODEL);
      expect(tracker.check(MODEL)).toMatchObject({ ok: false, state: 'probing' });
      return { c, tracker };
    }

    for (const errorClass of [
      'cancelled',
      'invalid_request',
      'context_overflow',
      'other',
    ] as const) {
      it(`releases a probe answered with ${errorClass} back to half-open, cooldown unchanged`, () => {
        const { c, tracker } = probing({ provider: true });
        tracker.record(failed(MODEL, errorClass));
        expect(tracker.state({ model: MODEL })).toBe('half_open');
        expect(tracker.state({ provider: 'anthropic' })).toBe('half_open');
        expect(tracker.check(MODEL)).toMatchObject({ ok: true, probe: true, state: 'half_open' });
        // the next call probes again; its failure doubles the original 1 s cooldown to 2 s
        tracker.routed(MODEL);
        tracker.record(failed(MODEL, 'server_error'));
        c.advance(1999);
        expect(tracker.check(MODEL).ok).toBe(false);
        c.advance(1);
        expect(tracker.check(MODEL).ok).toBe(true);
      });
    }

    it('releases a provider probe answered with rate_limit (the provider answered) while the model backs off', () => {
      const { tracker } = probing({ provider: true });
      tracker.record(failed(MODEL, 'rate_limit'));
      expect(tracker.state({ provider: 'anthropic' })).toBe('half_open');
      expect(tracker.state({ model: MODEL })).toBe('unavailable');
      expect(tracker.check(OTHER)).toMatchObject({ ok: true, probe: true });
    });

    it('releases a model probe on an auth failure, so reconfiguring brings it back', () => {
      const { tracker } = probing();
      tracker.record(failed(MODEL, 'auth'));
      expect(tracker.check(MODEL)).toMatchObject({ ok: false, state: 'not_configured' });
      tracker.markConfigured('anthropic');
      expect(tracker.check(MODEL)).toMatchObject({ ok: true, probe: true, state: 'half_open' });
    });

    it('expires a probe that never reports back to half-open after probeTimeoutMs', () => {
      const { c, tracker } = probing({ probeTimeoutMs: 60_000 });
      c.advance(59_999);
      expect(tracker.check(MODEL)).toMatchObject({ ok: false, state: 'probing' });
      c.advance(1);
      expect(tracker.state({ model: MODEL })).toBe('half_open');
      expect(tracker.check(MODEL)).toMatchObject({ ok: true, probe: true, state: 'half_open' });
      tracker.routed(MODEL);
      expect(tracker.check(MODEL), 'the new probe has its own deadline').toMatchObject({
        ok: false,
        state: 'probing',
      });
      c.advance(60_000);
      expect(tracker.check(MODEL).ok).toBe(true);
    });

    it('expires a probe of a provider that was routed but never run, by default after 5 minutes', () => {
      const { c, tracker } = probing({ provider: true });
      c.advance(5 * 60_000 - 1);
      expect(tracker.check(OTHER)).toMatchObject({ ok: false, state: 'probing' });
      c.advance(1);
      expect(tracker.check(OTHER)).toMatchObject({ ok: true, probe: true });
      expect(tracker.check(MODEL)).toMatchObject({ ok: true, probe: true });
    });
  });
});
