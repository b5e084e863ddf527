import { createEventBus, type RoutingConstraintFailureEvent } from '@yourtool/core';
import { describe, expect, it } from 'vitest';
import {
  AvailabilityTracker,
  ModelRegistry,
  NoRouteError,
  parseRoutingConfig,
  type RouteInput,
  Router,
  StrictRuleError,
  UnknownModelError,
} from '../src/index.js';
import { ENV, factories, MODELS_YAML, session_id, user } from './helpers.js';

// routing_constraint_failure on the router's bus (decision 0157): every refusal of a turn, its
// fallbacks included, is reported once with the chain that refused it; an unknown name is not
// a constraint and is only thrown.

const ROUTING = `
global_default: sonnet
rules:
  - name: confidential
    when: { message_matches: "confidential" }
    use: llama
    strict: true
`;

function setup() {
  const registry = ModelRegistry.fromYaml(MODELS_YAML, { factories: factories(), env: ENV });
  const bus = createEventBus();
  const failures: RoutingConstraintFailureEvent[] = [];
  bus.on('routing_constraint_failure', (e) => failures.push(e));
  const availability = new AvailabilityTracker({ now: () => 0 });
  const router = new Router({ registry, config: parseRoutingConfig(ROUTING), availability, bus });
  return { router, failures, availability };
}

const turn = (text = 'Hello', extra: Partial<RouteInput> = {}): RouteInput => ({
  session_id,
  messages: [user(text)],
  max_output_tokens: 1024,
  ...extra,
});

describe('routing_constraint_failure', () => {
  it('reports a turn a strict rule refuses, with the rule’s code and the chain', () => {
    const { router, failures, availability } = setup();
    for (let i = 0; i < 3; i++) {
      availability.record({
        type: 'llm.call_failed',
        request_id: `r${i}`,
        session_id,
        model: 'ollama:llama3.2:3b',
        provider: 'ollama',
        error_class: 'server_error',
        retry_count: 2,
        final: true,
        provider_status: 503,
        message: 'down',
        timestamp: new Date(0).toISOString(),
      });
    }
    expect(() => router.route(turn('confidential numbers'))).toThrowError(StrictRuleError);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({
      session_id,
      kind: 'turn',
      requested_model: null,
      code: 'strict_rule',
      reasons: [expect.stringContaining('ollama:llama3.2:3b')],
    });
    expect(failures[0]?.trace.length).toBeGreaterThan(0);
  });

  it('reports a turn whose fallbacks are exhausted, and not an unknown name', () => {
    const { router, failures } = setup();
    // an unknown name is the caller's mistake, not a constraint: thrown only
    expect(() => router.route(turn('hi', { override: 'gtp5' }))).toThrowError(UnknownModelError);
    expect(() => router.checkSwap('gtp5', turn())).toThrowError(UnknownModelError);
    const input = turn('hi', { override: 'haiku' });
    const first = router.route(input);
    expect(failures).toEqual([]);
    expect(() =>
      router.fallback(input, first, [
        { model: first.model, error_class: 'server_error', reason: 'answered 503' },
      ]),
    ).toThrowError(NoRouteError);
    expect(failures).toMatchObject([
      { kind: 'turn', code: 'no_route', requested_model: null, session_id },
    ]);
  });
});
