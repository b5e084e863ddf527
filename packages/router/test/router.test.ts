import { createEventBus, createMessage, type RouteDecidedEvent } from '@yourtool/core';
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
  SwapRefusedError,
  UnknownModelError,
} from '../src/index.js';
import { ENV, factories, image, MODELS_YAML, session_id, user } from './helpers.js';

const ROUTING = parseRoutingConfig(`
global_default: sonnet
workspaces:
  - path: /srv/app
    default: gpt5
  - path: /srv/app/ml
    default: opus
rules:
  - name: huge-context-to-deep
    when: { min_estimated_tokens: 5000 }
    use_tier: deep
  - name: sql-questions
    when: { message_matches: "\\\\bSQL\\\\b", needs_tools: false }
    use: gpt5-mini
  - name: fast-tier-asked
    when: { tier: fast }
    use_tier: fast
pattern:
  min_confidence: 0.7
`);

function setup(
  opts: {
    env?: Record<string, string>;
    now?: () => number;
    recommender?: ConstructorParameters<typeof Router>[0]['recommender'];
    perModel?: Parameters<typeof factories>[0];
  } = {},
) {
  const registry = ModelRegistry.fromYaml(MODELS_YAML, {
    factories: factories(opts.perModel),
    env: opts.env ?? ENV,
  });
  const bus = createEventBus();
  const decided: RouteDecidedEvent[] = [];
  bus.on('route.decided', (e) => decided.push(e));
  const availability = new AvailabilityTracker({ now: opts.now ?? (() => 0) });
  const router = new Router({
    registry,
    config: ROUTING,
    availability,
    bus,
    ...(opts.recommender ? { recommender: opts.recommender } : {}),
  });
  return { router, registry, decided, availability, bus };
}

const turn = (text = 'Hello', extra: Partial<RouteInput> = {}): RouteInput => ({
  session_id,
  messages: [user(text)],
  max_output_tokens: 1024,
  ...extra,
});

describe('the routing chain', () => {
  it('falls through to the global default, with a full trace and route.decided', () => {
    const { router, decided } = setup();
    const decision = router.route(turn());
    expect(decision.model).toBe('anthropic:claude-sonnet-4-6');
    expect(decision.policy).toBe('GLOBAL_DEFAULT');
    expect(decision.record).toEqual({
      mode: 'default',
      chosen_model: 'anthropic:claude-sonnet-4-6',
      reason: 'global default',
      rule_name: null,
      confidence: null,
      alternatives_considered: [],
    });
    expect(decision.trace.map((t) => `${t.policy}:${t.accepted}`)).toEqual([
      'PER_MESSAGE_OVERRIDE:false',
      'MANUAL_STICKY:false',
      'RULE:false',
      'PATTERN:false',
      'DELEGATE_REQUEST:false',
      'WORKSPACE_DEFAULT:false',
      'GLOBAL_DEFAULT:true',
    ]);
    expect(decided).toHaveLength(1);
    expect(decided[0]).toMatchObject({
      session_id,
      policy: 'GLOBAL_DEFAULT',
      decision: decision.record,
    });
    expect(decision.estimated_input_tokens).toBeGreaterThan(0);
  });

  it('takes a per-message override first', () => {
    const { router } = setup();
    const decision = router.route(turn('hi', { override: 'haiku', sticky: 'gpt5' }));
    expect(decision).toMatchObject({
      model: 'anthropic:claude-haiku-4-5',
      policy: 'PER_MESSAGE_OVERRIDE',
    });
    expect(decision.record).toMatchObject({
      mode: 'override',
      reason: 'per-message override @haiku',
    });
  });

  it('keeps the session sticky choice over rules and defaults', () => {
    const { router } = setup();
    const decision = router.route(
      turn('Explain SQL joins', { sticky: 'openai:gpt-5', workspace_path: '/srv/app' }),
    );
    expect(decision).toMatchObject({ model: 'openai:gpt-5', policy: 'MANUAL_STICKY' });
    expect(decision.record.mode).toBe('manual');
  });

  it('applies configured rules in order, with the rule name', () => {
    const { router } = setup();
    const sql = router.route(turn('Explain SQL joins'));
    expect(sql).toMatchObject({ model: 'openai:gpt-5-mini', policy: 'RULE' });
    expect(sql.record).toMatchObject({
      mode: 'rule',
      rule_name: 'sql-questions',
      reason: 'rule sql-questions',
    });
    const fast = router.route(turn('hi', { tier: 'fast' }));
    expect(fast.model).toBe('anthropic:claude-haiku-4-5');
    const big = router.route(turn('word '.repeat(6000)));
    expect(big.record).toMatchObject({
      rule_name: 'huge-context-to-deep',
      chosen_model: 'anthropic:claude-opus-4-7',
    });
  });

  it('uses a pattern recommendation at or above the confidence threshold only', () => {
    const confident = setup({
      recommender: () => ({
        model: 'gpt5',
        confidence: 0.82,
        reason: 'similar turns went to GPT-5',
      }),
    });
    const decision = confident.router.route(turn());
    expect(decision).toMatchObject({ model: 'openai:gpt-5', policy: 'PATTERN' });
    expect(decision.record).toMatchObject({ mode: 'pattern', confidence: 0.82 });
    const unsure = setup({ recommender: () => ({ model: 'gpt5', confidence: 0.5 }) });
    const fallback = unsure.router.route(turn());
    expect(fallback.policy).toBe('GLOBAL_DEFAULT');
    expect(fallback.trace.find((t) => t.policy === 'PATTERN')?.reason).toContain('below 0.7');
  });

  it('delegates to a model of the tier that accepts delegation', () => {
    const { router } = setup();
    const decision = router.route(turn('summarize', { delegate: { tier: 'fast' } }));
    expect(decision.model, 'haiku is fast but cannot be delegated to').toBe('openai:gpt-5-mini');
    expect(decision.record).toMatchObject({ mode: 'delegate', reason: 'delegated to tier fast' });
  });

  it('uses the most specific workspace default', () => {
    const { router } = setup();
    expect(router.route(turn('hi', { workspace_path: '/srv/app/web' })).model).toBe('openai:gpt-5');
    expect(router.route(turn('hi', { workspace_path: '/srv/app/ml/train' })).model).toBe(
      'anthropic:claude-opus-4-7',
    );
    expect(router.route(turn('hi', { workspace_path: '/srv/application' })).model).toBe(
      'anthropic:claude-sonnet-4-6',
    );
    expect(router.route(turn('hi', { workspace_path: '/srv/app' })).record.mode).toBe('default');
  });
});

describe('capability checks against the history', () => {
  it('rejects a text-only model when images are anywhere in the history', () => {
    const { router } = setup();
    const messages = [user('look', [image()]), user('and now?')];
    const decision = router.route({
      session_id,
      messages,
      max_output_tokens: 512,
      override: 'llama',
      fallthrough: true,
    });
    expect(decision.model).toBe('anthropic:claude-sonnet-4-6');
    expect(decision.trace[0]).toMatchObject({
      model: 'ollama:llama3.2:3b',
      accepted: false,
      reason: "session contains images that this model can't process",
    });
    expect(decision.record.alternatives_considered).toEqual(['ollama:llama3.2:3b']);
  });

  it('rejects unsupported image media types, tools, thinking and structured output', () => {
    const { router } = setup({
      perModel: {
        'openai:gpt-5': {
          supports_thinking: false,
          supports_structured_output: false,
          supports_tools: false,
        },
      },
    });
    try {
      router.route({
        session_id,
        messages: [user('gif', [image('image/gif')])],
        max_output_tokens: 10,
        override: 'gpt5',
        fallthrough: true,
      });
      expect.unreachable('no model of the registry takes GIFs');
    } catch (error) {
      expect(error).toBeInstanceOf(NoRouteError);
      expect((error as NoRouteError).trace[0]?.reason).toBe(
        "session contains image/gif images that this model can't process",
      );
    }
    const toolHistory = [
      user('read'),
      createMessage({
        session_id,
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'tu_1', name: 'read_file', input: {} }],
        metadata: {},
      }),
    ];
    const tools = router.route({
      session_id,
      messages: toolHistory,
      max_output_tokens: 10,
      override: 'llama',
      fallthrough: true,
    });
    expect(tools.trace[0]?.reason).toBe('session uses tools and this model has no tool support');
    const thinking = router.route(
      turn('x', {
        override: 'gpt5',
        fallthrough: true,
        thinking: true,
        output_schema: { type: 'object' },
      }),
    );
    expect(thinking.trace[0]?.reason).toBe(
      'the turn asks for thinking, which this model does not support; the turn asks for structured output, and this model has neither structured output nor tools for the forced-tool fallback',
    );
  });

  it('rejects a model that takes no system prompt when the turn has one', () => {
    const { router } = setup({ perModel: { 'openai:gpt-5': { supports_system_prompt: false } } });
    const decision = router.route(
      turn('hi', { override: 'gpt5', system_prompt: 'Be brief.', fallthrough: true }),
    );
    expect(decision.trace[0]?.reason).toBe(
      'the turn has a system prompt and this model takes none',
    );
    expect(
      router.route(turn('hi', { override: 'gpt5' })).model,
      'no system prompt, no problem',
    ).toBe('openai:gpt-5');
  });

  it('rejects a model whose context window or output limit is too small', () => {
    const { router } = setup();
    const long = router.route(
      turn('word '.repeat(8000), { override: 'llama', max_output_tokens: 1000, fallthrough: true }),
    );
    expect(long.trace[0]?.reason).toMatch(
      /session needs about \d+ input \+ 1000 output tokens and this model's context window is 8192/,
    );
    // the window alone was in the way: the trace says by how much (what compaction reads)
    expect(long.trace[0]?.context_limited).toMatchObject({
      context_window: 8192,
      max_output_tokens: 1000,
    });
    expect(long.trace[0]?.context_limited?.estimated_input_tokens).toBeGreaterThan(7192);
    const output = router.route(
      turn('hi', { override: 'llama', max_output_tokens: 4096, fallthrough: true }),
    );
    expect(output.trace[0]?.reason).toBe(
      'the turn asks for up to 4096 output tokens and this model writes at most 2048',
    );
    expect(output.trace[0]?.context_limited, 'not a window problem').toBeUndefined();
    const both = router.route(
      turn('word '.repeat(8000), { override: 'llama', max_output_tokens: 4096, fallthrough: true }),
    );
    expect(both.trace[0]?.context_limited, 'a shorter history would not be enough').toBeUndefined();
  });

  it('rejects unknown and not-configured models with the reason, and fails when nothing passes', () => {
    const { router } = setup({ env: { ANTHROPIC_API_KEY: 'k' } });
    const decision = router.route(
      turn('hi', { override: 'gpt-6', sticky: 'gpt5', fallthrough: true }),
    );
    expect(decision.trace[0]).toMatchObject({
      model: 'gpt-6',
      accepted: false,
      reason: expect.stringContaining('unknown model "gpt-6"'),
    });
    expect(decision.trace[1]).toMatchObject({
      model: 'openai:gpt-5',
      reason: 'not configured: the environment variable OPENAI_API_KEY is not set',
    });
    const none = setup({ env: {} });
    expect(() => none.router.route(turn())).toThrowError(NoRouteError);
  });

  it('skips a model the availability tracker marks unavailable', () => {
    const { router, availability } = setup();
    for (let i = 0; i < 3; i++) {
      availability.record({
        type: 'llm.call_failed',
        request_id: `r${i}`,
        session_id,
        model: 'anthropic:claude-sonnet-4-6',
        provider: 'anthropic',
        error_class: 'rate_limit',
        retry_count: 2,
        final: true,
        provider_status: 429,
        message: 'slow down',
        timestamp: '2026-01-01T00:00:00.000000Z',
      });
    }
    expect(() => router.route(turn())).toThrowError(NoRouteError);
    const sticky = router.route(turn('hi', { sticky: 'gpt5' }));
    expect(sticky.model).toBe('openai:gpt-5');
  });
});

describe('manual swaps', () => {
  it('refuses a swap the history cannot survive, with the message users see', () => {
    const { router } = setup();
    const messages = [user('What is in this picture?', [image()])];
    expect(() => router.checkSwap('llama', { messages, max_output_tokens: 1024 })).toThrowError(
      SwapRefusedError,
    );
    try {
      router.checkSwap('llama', { messages, max_output_tokens: 1024 });
    } catch (error) {
      expect((error as Error).message).toBe(
        "Cannot swap to Llama 3.2 3B: session contains images that this model can't process. Active model unchanged.",
      );
      expect((error as SwapRefusedError).reasons).toEqual([
        "session contains images that this model can't process",
      ]);
    }
  });

  it('accepts a swap the history survives, and refuses unknown or unconfigured models', () => {
    const { router } = setup({ env: { ANTHROPIC_API_KEY: 'k' } });
    expect(router.checkSwap('haiku', { messages: [user('hi')], max_output_tokens: 1024 })).toBe(
      'anthropic:claude-haiku-4-5',
    );
    expect(() =>
      router.checkSwap('gtp5', { messages: [user('hi')], max_output_tokens: 1024 }),
    ).toThrowError(UnknownModelError);
    expect(() =>
      router.checkSwap('gpt5', { messages: [user('hi')], max_output_tokens: 1024 }),
    ).toThrow(
      /Cannot swap to openai:gpt-5: it is not configured \(the environment variable OPENAI_API_KEY is not set\)/,
    );
  });
});

describe('checkRoutingConfig', () => {
  it('refuses model names and tiers the registry does not know', () => {
    const { registry } = setup();
    const config = parseRoutingConfig({
      global_default: 'sonet',
      rules: [{ name: 'r', when: {}, use_tier: 'huge' }],
    });
    try {
      checkRoutingConfig(config, registry, 'routing.yaml');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(RouterConfigError);
      expect((error as RouterConfigError).issues.map((i) => i.path)).toEqual([
        'global_default',
        'rules[0].use_tier',
      ]);
    }
  });
});
