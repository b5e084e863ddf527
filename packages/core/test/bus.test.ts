import { describe, expect, it } from 'vitest';
import {
  type BusEvent,
  createEventBus,
  createMemoryLogger,
  RoutingPolicySchema,
  routingModeForPolicy,
} from './exports.js';

const started: BusEvent = {
  type: 'llm.call_started',
  request_id: 'req_1',
  session_id: 's',
  model: 'openai:gpt-5',
  provider: 'openai',
  attempt: 1,
  timestamp: '2026-01-01T00:00:00.000000Z',
};

describe('event bus', () => {
  it('delivers by type and to catch-all handlers, and unsubscribes', () => {
    const bus = createEventBus();
    const typed: string[] = [];
    const all: string[] = [];
    const off = bus.on('llm.call_started', (e) => typed.push(e.request_id));
    bus.onAny((e) => all.push(e.type));
    bus.on('llm.call_failed', () => typed.push('wrong'));
    bus.emit(started);
    off();
    bus.emit(started);
    expect(typed).toEqual(['req_1']);
    expect(all).toEqual(['llm.call_started', 'llm.call_started']);
  });

  it('keeps delivering when a handler throws, and logs it', () => {
    const logger = createMemoryLogger();
    const bus = createEventBus({ logger });
    const seen: string[] = [];
    bus.on('llm.call_started', () => {
      throw new Error('bad handler');
    });
    bus.on('llm.call_started', (e) => seen.push(e.request_id));
    bus.emit(started);
    expect(seen).toEqual(['req_1']);
    expect(logger.records[0]).toMatchObject({
      level: 'error',
      obj: { event: 'bus.handler_error' },
    });
  });
});

describe('routing mode projection (canonical-format §4.3)', () => {
  it('maps every chain step, collapsing both defaults', () => {
    expect(
      Object.fromEntries(RoutingPolicySchema.options.map((p) => [p, routingModeForPolicy(p)])),
    ).toEqual({
      PER_MESSAGE_OVERRIDE: 'override',
      MANUAL_STICKY: 'manual',
      RULE: 'rule',
      PATTERN: 'pattern',
      DELEGATE_REQUEST: 'delegate',
      WORKSPACE_DEFAULT: 'default',
      GLOBAL_DEFAULT: 'default',
    });
  });
});
