import { createEventBus, type FallbackAttempt, type RouteDecidedEvent } from '@yourtool/core';
import { describe, expect, it } from 'vitest';
import {
  AvailabilityTracker,
  checkRoutingConfig,
  ModelRegistry,
  NoRouteError,
  parseRoutingConfig,
  type RouteInput,
  Router,
  RouterConfigError,
  StrictRuleError,
} from '../src/index.js';
import { ENV, factories, MODELS_YAML, session_id, user } from './helpers.js';

const ROUTING = `
global_default: sonnet
fallbacks:
  sonnet: [gpt5, haiku]
  openai:gpt-5: [opus]
  llama: [sonnet]
rules:
  - name: sql
    when: { message_matches: "\\\\bSQL\\\\b" }
    use: gpt5-mini
    fallbacks: [haiku]
  - name: confidential
    when: { message_matches: "confidential" }
    use: llama
    strict: true
  - name: private
    when: { message_matches: "private" }
    use: llama
    strict: true
    fallbacks: [haiku]
`;

function setup() {
  const registry = ModelRegistry.fromYaml(MODELS_YAML, { factories: factories(), env: ENV });
  const bus = createEventBus();
  const decided: RouteDecidedEvent[] = [];
  bus.on('route.decided', (e) => decided.push(e));
  const availability = new AvailabilityTracker({ now: () => 0 });
  const config = parseRoutingConfig(ROUTING);
  checkRoutingConfig(config, registry);
  const router = new Router({ registry, config, availability, bus });
  return { router, registry, decided, availability };
}

const turn = (text = 'Hello', extra: Partial<RouteInput> = {}): RouteInput => ({
  session_id,
  messages: [user(text)],
  max_output_tokens: 1024,
  ...extra,
});

const failure = (model: string, error_class: FallbackAttempt['error_class'] = 'server_error') => ({
  model,
  error_class,
  reason: `${model} answered 503 Service Unavailable`,
});

describe('router.fallback: re-routing within a turn', () => {
  it('takes the next model of the failed model’s fallbacks and records the failure', () => {
    const { router, decided } = setup();
    const input = turn();
    const first = router.route(input);
    expect(first.model).toBe('anthropic:claude-sonnet-4-6');
    const failures = [failure(first.model)];
    const next = router.fallback(input, first, failures);
    expect(next).toMatchObject({ model: 'openai:gpt-5', policy: 'GLOBAL_DEFAULT' });
    expect(next.record).toEqual({
      mode: 'default',
      chosen_model: 'openai:gpt-5',
      reason: 'fallback after anthropic:claude-sonnet-4-6 failed (server_error)',
      rule_name: null,
      confidence: null,
      alternatives_considered: ['anthropic:claude-sonnet-4-6'],
      fallback_from: failures,
    });
    expect(next.trace).toEqual([
      {
        policy: 'GLOBAL_DEFAULT',
        model: 'anthropic:claude-sonnet-4-6',
        accepted: false,
        reason:
          'failed (server_error): anthropic:claude-sonnet-4-6 answered 503 Service Unavailable',
      },
      {
        policy: 'GLOBAL_DEFAULT',
        model: 'openai:gpt-5',
        accepted: true,
        reason: 'fallback after anthropic:claude-sonnet-4-6 failed (server_error)',
      },
    ]);
    expect(decided).toHaveLength(2);
    expect(decided[1]).toMatchObject({
      type: 'route.decided',
      session_id,
      policy: 'GLOBAL_DEFAULT',
      decision: next.record,
      trace: next.trace,
    });
  });

  it('skips every model that already failed and continues down the first choice’s list', () => {
    const { router } = setup();
    const input = turn();
    const first = router.route(input);
    const second = router.fallback(input, first, [failure(first.model)]);
    const failures = [failure(first.model), failure(second.model, 'context_overflow')];
    const third = router.fallback(input, second, failures);
    expect(third.model, 'haiku is next on sonnet’s list; opus (gpt-5’s) after it').toBe(
      'anthropic:claude-haiku-4-5',
    );
    expect(third.record.reason).toBe('fallback after openai:gpt-5 failed (context_overflow)');
    expect(third.record.fallback_from).toEqual(failures);
    const fourth = router.fallback(input, third, [...failures, failure(third.model)]);
    expect(fourth.model).toBe('anthropic:claude-opus-4-7');
  });

  it('checks each fallback like route does: an unavailable one is passed over', () => {
    const { router, availability } = setup();
    for (let i = 0; i < 3; i++) {
      availability.record({
        type: 'llm.call_failed',
        request_id: `r${i}`,
        session_id,
        model: 'openai:gpt-5',
        provider: 'openai',
        error_class: 'rate_limit',
        retry_count: 2,
        final: true,
        provider_status: 429,
        message: 'slow down',
        timestamp: '2026-01-01T00:00:00.000000Z',
      });
    }
    const input = turn();
    const first = router.route(input);
    const next = router.fallback(input, first, [failure(first.model)]);
    expect(next.model).toBe('anthropic:claude-haiku-4-5');
    expect(next.trace[1]).toMatchObject({ model: 'openai:gpt-5', accepted: false });
    expect(next.record.alternatives_considered).toEqual([
      'anthropic:claude-sonnet-4-6',
      'openai:gpt-5',
    ]);
  });

  it('uses a rule’s own fallbacks when the decision came from that rule', () => {
    const { router } = setup();
    const input = turn('Explain SQL joins');
    const first = router.route(input);
    expect(first.record.rule_name).toBe('sql');
    const next = router.fallback(input, first, [failure(first.model, 'network')]);
    expect(next).toMatchObject({ model: 'anthropic:claude-haiku-4-5', policy: 'RULE' });
    expect(next.record).toMatchObject({
      mode: 'rule',
      rule_name: 'sql',
      reason: 'fallback after openai:gpt-5-mini failed (network)',
    });
  });

  it('throws NoRouteError with the trace when no fallback is configured or none is left', () => {
    const { router } = setup();
    const input = turn('hi', { override: 'haiku' });
    const first = router.route(input);
    try {
      router.fallback(input, first, [failure(first.model)]);
      expect.unreachable('haiku has no fallbacks');
    } catch (error) {
      expect(error).toBeInstanceOf(NoRouteError);
      expect(error).not.toBeInstanceOf(StrictRuleError);
      expect((error as NoRouteError).trace.at(-1)).toEqual({
        policy: 'PER_MESSAGE_OVERRIDE',
        model: null,
        accepted: false,
        reason: 'no fallbacks left for anthropic:claude-haiku-4-5',
      });
    }
    const plain = turn();
    const sonnet = router.route(plain);
    const all = ['anthropic:claude-sonnet-4-6', 'openai:gpt-5', 'anthropic:claude-haiku-4-5'];
    expect(() =>
      router.fallback(
        plain,
        sonnet,
        [...all, 'anthropic:claude-opus-4-7'].map((m) => failure(m)),
      ),
    ).toThrowError(NoRouteError);
  });

  it('keeps a strict rule’s turn within the rule: its own fallbacks only', () => {
    const { router } = setup();
    const confidential = turn('confidential memo');
    const local = router.route(confidential);
    expect(local.record.rule_name).toBe('confidential');
    try {
      router.fallback(confidential, local, [failure(local.model, 'network')]);
      expect.unreachable('llama’s model-level fallback (sonnet) is a cloud model');
    } catch (error) {
      expect(error).toBeInstanceOf(StrictRuleError);
      expect((error as StrictRuleError).rule).toBe('confidential');
      expect((error as StrictRuleError).trace.some((t) => t.accepted)).toBe(false);
    }
    const privateTurn = turn('private memo');
    const first = router.route(privateTurn);
    const next = router.fallback(privateTurn, first, [failure(first.model, 'network')]);
    expect(next.model).toBe('anthropic:claude-haiku-4-5');
    expect(next.record.rule_name).toBe('private');
  });
});

describe('checkRoutingConfig and fallbacks', () => {
  it('refuses a fallback name the registry does not know, with its path', () => {
    const { registry } = setup();
    const config = parseRoutingConfig({
      global_default: 'sonnet',
      rules: [{ name: 'r', when: {}, use: 'haiku', fallbacks: ['hiaku'] }],
      fallbacks: { sonnet: ['gpt5', 'gtp5'], sonet: ['haiku'] },
    });
    try {
      checkRoutingConfig(config, registry, 'routing.yaml');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(RouterConfigError);
      const issues = (error as RouterConfigError).issues;
      expect(issues.map((i) => i.path)).toEqual([
        'rules[0].fallbacks[0]',
        'fallbacks["sonnet"][1]',
        'fallbacks["sonet"]',
      ]);
      expect(issues[1]?.message).toContain('did you mean "gpt5"');
    }
  });

  it('parses strict and fallbacks, refusing a non-boolean strict with its path', () => {
    const config = parseRoutingConfig(ROUTING);
    expect(config.rules.map((r) => r.strict)).toEqual([false, true, true]);
    expect(config.fallbacks).toEqual({
      sonnet: ['gpt5', 'haiku'],
      'openai:gpt-5': ['opus'],
      llama: ['sonnet'],
    });
    try {
      parseRoutingConfig(
        'global_default: sonnet\nrules:\n  - { name: a, when: {}, use: x, strict: sure }',
      );
      expect.unreachable();
    } catch (error) {
      expect((error as RouterConfigError).issues.map((i) => i.path)).toEqual(['rules[0].strict']);
    }
  });
});
