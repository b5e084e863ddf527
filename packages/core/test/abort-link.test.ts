import { describe, expect, it } from 'vitest';
import { linkAbort } from '../src/abort-link.js';
import { InflightCalls } from '../src/adapter.js';
import { AttemptDeadline } from '../src/deadline.js';

describe('linkAbort', () => {
  it("aborts the controller when the source aborts, with the source's reason", () => {
    const source = new AbortController();
    const linked = new AbortController();
    linkAbort(source.signal, linked);
    expect(linked.signal.aborted).toBe(false);
    const reason = new Error('stop');
    source.abort(reason);
    expect(linked.signal.aborted).toBe(true);
    expect(linked.signal.reason).toBe(reason);
  });

  it('aborts at once when the source already has', () => {
    const source = new AbortController();
    source.abort('early');
    const linked = new AbortController();
    linkAbort(source.signal, linked);
    expect(linked.signal.reason).toBe('early');
  });

  it('stops following the source once unlinked', () => {
    const source = new AbortController();
    const linked = new AbortController();
    const unlink = linkAbort(source.signal, linked);
    unlink();
    source.abort();
    expect(linked.signal.aborted).toBe(false);
  });
});

describe('signals linked instead of AbortSignal.any', () => {
  it("a call's signal aborts with the caller's and on cancel, and lets go of the caller's at its end", () => {
    const calls = new InflightCalls();
    const caller = new AbortController();
    const first = calls.begin('req_1', caller.signal);
    caller.abort('caller');
    expect(first.signal.reason).toBe('caller');

    const second = new AbortController();
    const call = calls.begin('req_2', second.signal);
    expect(calls.cancel('req_2')).toBe(true);
    expect(call.signal.aborted).toBe(true);

    const third = new AbortController();
    const ended = calls.begin('req_3', third.signal);
    ended.end();
    third.abort();
    expect(ended.signal.aborted).toBe(false);
  });

  it("an attempt's signal aborts with the call's until the attempt is cleared", () => {
    const call = new AbortController();
    const deadline = new AttemptDeadline(call.signal, {});
    call.abort('cancelled');
    expect(deadline.signal.reason).toBe('cancelled');

    const later = new AbortController();
    const cleared = new AttemptDeadline(later.signal, {});
    cleared.clear();
    later.abort();
    expect(cleared.signal.aborted).toBe(false);
  });
});
