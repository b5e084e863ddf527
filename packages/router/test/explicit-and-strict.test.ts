import { createEventBus, type RouteDecidedEvent } from '@yourtool/core';
import { describe, expect, it } from 'vitest';
import {
  AvailabilityTracker,
  ChoiceUnavailableError,
  ModelRegistry,
  NoRouteError,
  parseRoutingConfig,
  type RouteInput,
  Router,
  type RouterOptions,
  StrictRuleError,
  UnknownModelError,
} from '../src/index.js';
import { ENV, factories, image, MODELS_YAML, session_id, user } from './helpers.js';

const ROUTING = `
global_default: sonnet
rules:
  - name: confidential
    when: { message_matches: "confidential" }
    use: llama
    strict: true
  - name: drafts
    when: { message_matches: "draft" }
    use: llama
`;

function setup(
  opts: { env?: Record<string, string>; routing?: string } & Partial<
    Pick<RouterOptions, 'explicitChoices'>
  > = {},
) {
  const registry = ModelRegistry.fromYaml(MODELS_YAML, {
    factories: factories(),
    env: opts.env ?? ENV,
  });
  const bus = createEventBus();
  const decided: RouteDecidedEvent[] = [];
  bus.on('route.decided', (e) => decided.push(e));
  const availability = new AvailabilityTracker({ now: () => 0 });
  const router = new Router({
    registry,
    config: parseRoutingConfig(opts.routing ?? ROUTING),
    availability,
    bus,
    ...(opts.explicitChoices ? { explicitChoices: opts.explicitChoices } : {}),
  });
  return { router, decided, availability };
}

const turn = (text = 'Hello', extra: Partial<RouteInput> = {}): RouteInput => ({
  session_id,
  messages: [user(text)],
  max_output_tokens: 1024,
  ...extra,
});

/** Three final server errors in a row: the tracker takes the model out of rotation. */
const takeDown = (availability: AvailabilityTracker, model: string) => {
  for (let i = 0; i < 3; i++) {
    availability.record({
      type: 'llm.call_failed',
      request_id: `r${i}`,
      session_id,
      model,
      provider: model.split(':')[0] ?? model,
      error_class: 'server_error',
      retry_count: 2,
      final: true,
      provider_status: 503,
      message: 'connection refused',
      timestamp: '2026-01-01T00:00:00.000000Z',
    });
  }
};

const thrown = (fn: () => unknown): unknown => {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return expect.unreachable('expected an error');
};

describe('explicit choices are strict by default', () => {
  it('refuses a typo in @model, naming it and the close match, instead of using the default', () => {
    const { router, decided } = setup();
    const error = thrown(() => router.route(turn('hi', { override: 'gtp5' })));
    expect(error).toBeInstanceOf(ChoiceUnavailableError);
    // the same error type as a typo through /model (registry.resolve)
    expect(error).toBeInstanceOf(UnknownModelError);
    const viaResolve = thrown(() => router.registry.resolve('gtp5'));
    expect(viaResolve).toBeInstanceOf(UnknownModelError);
    expect((viaResolve as UnknownModelError).suggestions[0]).toBe('gpt5');
    const choice = error as ChoiceUnavailableError;
    expect(choice).toMatchObject({
      code: 'unknown_model',
      choice: 'gtp5',
      requested: 'gtp5',
      policy: 'PER_MESSAGE_OVERRIDE',
    });
    expect(choice.suggestions[0]).toBe('gpt5');
    expect(choice.reason).toMatch(/^unknown model "gtp5"; did you mean "gpt5"/);
    expect(choice.message).toMatch(
      /^@gtp5 cannot be used: unknown model "gtp5"; did you mean "gpt5".*\(send with fallthrough to let routing choose\)$/,
    );
    expect(choice.trace.at(-1)).toMatchObject({
      policy: 'PER_MESSAGE_OVERRIDE',
      model: 'gtp5',
      accepted: false,
    });
    expect(decided, 'nothing was routed').toEqual([]);
  });

  it('refuses a sticky /model choice that is no longer configured', () => {
    const { router } = setup({ env: { ANTHROPIC_API_KEY: 'k' } });
    const error = thrown(() => router.route(turn('hi', { sticky: 'gpt5' })));
    expect(error).toBeInstanceOf(ChoiceUnavailableError);
    expect(error).toMatchObject({
      choice: 'gpt5',
      policy: 'MANUAL_STICKY',
      reason: 'not configured: the environment variable OPENAI_API_KEY is not set',
      suggestions: [],
    });
    expect((error as Error).message).toMatch(/^\/model gpt5 cannot be used: not configured/);
  });

  it('refuses a sticky choice that cannot take the history, with the capability reason', () => {
    const { router } = setup();
    const input: RouteInput = {
      session_id,
      messages: [user('look', [image()]), user('and now?')],
      max_output_tokens: 512,
      sticky: 'llama',
    };
    const error = thrown(() => router.route(input));
    expect(error).toBeInstanceOf(ChoiceUnavailableError);
    expect(error).toMatchObject({
      choice: 'llama',
      policy: 'MANUAL_STICKY',
      reason: "session contains images that this model can't process",
    });
  });

  it('refuses an explicit choice the availability tracker has taken out of rotation', () => {
    const { router, availability } = setup();
    takeDown(availability, 'openai:gpt-5');
    expect(thrown(() => router.route(turn('hi', { override: 'gpt5' })))).toBeInstanceOf(
      ChoiceUnavailableError,
    );
  });

  it('falls through to the rest of the chain with fallthrough: true, as before', () => {
    const { router, decided } = setup();
    const decision = router.route(turn('hi', { override: 'gtp5', fallthrough: true }));
    expect(decision).toMatchObject({
      model: 'anthropic:claude-sonnet-4-6',
      policy: 'GLOBAL_DEFAULT',
    });
    expect(decision.trace[0]).toMatchObject({ model: 'gtp5', accepted: false });
    expect(decided).toHaveLength(1);
  });

  it("falls through for every turn with explicitChoices: 'fall_through'", () => {
    const { router } = setup({ explicitChoices: 'fall_through', env: { ANTHROPIC_API_KEY: 'k' } });
    expect(router.route(turn('hi', { sticky: 'gpt5' })).model).toBe('anthropic:claude-sonnet-4-6');
    expect(router.route(turn('hi', { override: 'gtp5' })).policy).toBe('GLOBAL_DEFAULT');
  });
});

describe('strict rules: the privacy switch', () => {
  it('refuses the turn when the strict rule’s only model is down; no cloud model is chosen', () => {
    const { router, availability, decided } = setup();
    takeDown(availability, 'ollama:llama3.2:3b');
    const error = thrown(() => router.route(turn('This is confidential: the Q3 numbers')));
    expect(error).toBeInstanceOf(StrictRuleError);
    expect(error).toBeInstanceOf(NoRouteError);
    const strict = error as StrictRuleError;
    expect(strict.code).toBe('strict_rule');
    expect(strict.rule).toBe('confidential');
    expect(strict.message).toContain('strict rule "confidential"');
    expect(strict.message).toContain('ollama:llama3.2:3b');
    expect(strict.trace.some((t) => t.accepted)).toBe(false);
    expect(strict.trace.map((t) => t.policy)).not.toContain('GLOBAL_DEFAULT');
    expect(decided).toEqual([]);
  });

  it('routes to the strict rule’s model when it is up', () => {
    const { router } = setup();
    const decision = router.route(turn('confidential memo'));
    expect(decision).toMatchObject({ model: 'ollama:llama3.2:3b', policy: 'RULE' });
    expect(decision.record.rule_name).toBe('confidential');
  });

  it('lets a non-strict rule fall through to later steps, as before', () => {
    const { router, availability } = setup();
    takeDown(availability, 'ollama:llama3.2:3b');
    const decision = router.route(turn('a draft of the memo'));
    expect(decision).toMatchObject({
      model: 'anthropic:claude-sonnet-4-6',
      policy: 'GLOBAL_DEFAULT',
    });
  });

  it('does not let a sticky cloud model take a turn a strict rule governs', () => {
    const { router, availability } = setup();
    const error = thrown(() => router.route(turn('confidential memo', { sticky: 'gpt5' })));
    expect(error).toBeInstanceOf(ChoiceUnavailableError);
    expect((error as ChoiceUnavailableError).reason).toBe(
      'strict rule "confidential" matched and allows only ollama:llama3.2:3b',
    );
    const through = router.route(turn('confidential memo', { sticky: 'gpt5', fallthrough: true }));
    expect(through).toMatchObject({ model: 'ollama:llama3.2:3b', policy: 'RULE' });
    takeDown(availability, 'ollama:llama3.2:3b');
    expect(
      thrown(() => router.route(turn('confidential memo', { sticky: 'gpt5', fallthrough: true }))),
    ).toBeInstanceOf(StrictRuleError);
  });

  it('tries a strict rule’s own fallbacks, and only those', () => {
    const { router, availability } = setup({
      routing: `
global_default: sonnet
rules:
  - name: confidential
    when: { message_matches: "confidential" }
    use: llama
    strict: true
    fallbacks: [haiku]
`,
    });
    takeDown(availability, 'ollama:llama3.2:3b');
    const decision = router.route(turn('confidential memo'));
    expect(decision).toMatchObject({ model: 'anthropic:claude-haiku-4-5', policy: 'RULE' });
    expect(decision.record.reason).toBe('rule confidential (fallback)');
    takeDown(availability, 'anthropic:claude-haiku-4-5');
    expect(thrown(() => router.route(turn('confidential memo')))).toBeInstanceOf(StrictRuleError);
  });
});
