import { describe, expect, it } from 'vitest';
import {
  CAPABILITIES_NOT_DETECTED,
  ChoiceUnavailableError,
  ModelRegistry,
  parseRoutingConfig,
  type RouteInput,
  Router,
  StrictRuleError,
  SwapRefusedError,
} from '../src/index.js';
import { DETECTED, DeclaringAdapter, DetectingAdapter, FULL, session_id, user } from './helpers.js';

const YAML = `
adapters:
  anthropic: { type: anthropic, api_key_env: ANTHROPIC_API_KEY }
  ollama: { type: ollama, base_url: http://127.0.0.1:11434 }
models:
  anthropic:claude-sonnet-4-6: { adapter: anthropic, wire_name: claude-sonnet-4-6, aliases: [sonnet] }
  ollama:qwen3:8b: { adapter: ollama, wire_name: qwen3:8b, aliases: [qwen] }
  ollama:llama3.2:3b: { adapter: ollama, wire_name: llama3.2:3b, aliases: [llama] }
`;

function setup() {
  let ollama: DetectingAdapter | undefined;
  const registry = ModelRegistry.fromYaml(YAML, {
    factories: {
      anthropic: (config, runtime) => new DeclaringAdapter('anthropic', config, runtime),
      ollama: (config, runtime) => {
        ollama = new DetectingAdapter('ollama', config, runtime);
        return ollama;
      },
    },
    env: { ANTHROPIC_API_KEY: 'k' },
  });
  const router = new Router({ registry, config: parseRoutingConfig('global_default: sonnet') });
  if (!ollama) throw new Error('the ollama factory was not called');
  return { router, ollama };
}

/** A turn that needs more than the 4096-token window an undetected model reports. */
const turn = (extra: Partial<RouteInput> = {}): RouteInput => ({
  session_id,
  messages: [user('Summarize this, please.')],
  max_output_tokens: 4096,
  ...extra,
});

describe('router.prepare: capabilities detected before routing', () => {
  it('says "capabilities not detected yet" before prepare, not a misleading context problem', () => {
    const { router, ollama } = setup();
    try {
      router.route(turn({ override: 'qwen' }));
      expect.unreachable('qwen is not detected yet');
    } catch (error) {
      expect(error).toBeInstanceOf(ChoiceUnavailableError);
      expect((error as ChoiceUnavailableError).reason).toBe(CAPABILITIES_NOT_DETECTED);
      expect(CAPABILITIES_NOT_DETECTED).toBe(
        'capabilities not detected yet (call router.prepare() before routing)',
      );
    }
    const through = router.route(turn({ override: 'qwen', fallthrough: true }));
    expect(through.trace[0]).toMatchObject({
      model: 'ollama:qwen3:8b',
      reason: CAPABILITIES_NOT_DETECTED,
    });
    expect(() => router.checkSwap('qwen', turn())).toThrowError(SwapRefusedError);
    expect(() => router.checkSwap('qwen', turn())).toThrow(/capabilities not detected yet/);
    expect(ollama.calls, 'routing itself never calls the provider').toEqual([]);
  });

  it('detects every configured model that needs it, then routes with the detected capabilities', async () => {
    const { router, ollama } = setup();
    const report = await router.prepare();
    expect(report.failed).toEqual([]);
    expect(report.detected.sort()).toEqual(['ollama:llama3.2:3b', 'ollama:qwen3:8b']);
    expect(ollama.calls.sort()).toEqual(['ollama:llama3.2:3b', 'ollama:qwen3:8b']);
    const decision = router.route(turn({ override: 'qwen' }));
    expect(decision.model).toBe('ollama:qwen3:8b');
    expect(decision.capabilities).toEqual({ ...FULL, ...DETECTED });
    const again = await router.prepare();
    expect(again).toEqual({ detected: [], failed: [] });
    expect(ollama.calls, 'nothing is asked twice').toHaveLength(2);
  });

  it('prepares only the models asked for, and reports names that do not resolve', async () => {
    const { router, ollama } = setup();
    const report = await router.prepare({ models: ['llama', 'qwne', 'sonnet'] });
    expect(report.detected).toEqual(['ollama:llama3.2:3b']);
    expect(report.failed.map((f) => f.model)).toEqual(['qwne']);
    expect(report.failed[0]?.error.message).toContain('did you mean "qwen"');
    expect(ollama.calls).toEqual(['ollama:llama3.2:3b']);
  });

  it('reports a failed detection without throwing; the model stays refused with the reason', async () => {
    const { router, ollama } = setup();
    ollama.failing.add('ollama:qwen3:8b');
    const report = await router.prepare();
    expect(report.detected).toEqual(['ollama:llama3.2:3b']);
    expect(report.failed).toHaveLength(1);
    expect(report.failed[0]?.model).toBe('ollama:qwen3:8b');
    expect(report.failed[0]?.error.message).toContain('try pulling it first');
    expect(() => router.route(turn({ override: 'qwen' }))).toThrow(
      /capabilities could not be detected: model "ollama:qwen3:8b" not found, try pulling it first \(router\.prepare\(\) at /,
    );
  });

  it('a strict rule refused because the server was down at detection names the connection refused', async () => {
    const registry = ModelRegistry.fromYaml(YAML, {
      factories: {
        anthropic: (config, runtime) => new DeclaringAdapter('anthropic', config, runtime),
        ollama: (config, runtime) => {
          const adapter = new DetectingAdapter('ollama', config, runtime);
          // what Node's fetch throws when nothing listens on the port
          adapter.down = new TypeError('fetch failed', {
            cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:11434'), {
              code: 'ECONNREFUSED',
            }),
          });
          return adapter;
        },
      },
      env: { ANTHROPIC_API_KEY: 'k' },
    });
    const router = new Router({
      registry,
      config: parseRoutingConfig(`
global_default: sonnet
rules:
  - { name: confidential, when: { message_matches: "(?i)CONFIDENTIAL" }, use: qwen, strict: true }
`),
    });
    await router.prepare();
    let refused: unknown;
    try {
      router.route(turn({ messages: [user('confidential: the Q3 numbers')] }));
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(StrictRuleError);
    expect((refused as Error).message).toContain(
      'capabilities could not be detected: fetch failed (connection refused, ECONNREFUSED)',
    );
    expect((refused as Error).message).not.toContain('call router.prepare() before routing');
  });

  it('honours an already aborted signal: no detection runs, every pending model is reported', async () => {
    const { router, ollama } = setup();
    const controller = new AbortController();
    controller.abort(new Error('shutting down'));
    const report = await router.prepare({ signal: controller.signal });
    expect(ollama.calls).toEqual([]);
    expect(report.detected).toEqual([]);
    expect(report.failed.map((f) => [f.model, f.error.message]).sort()).toEqual([
      ['ollama:llama3.2:3b', 'shutting down'],
      ['ollama:qwen3:8b', 'shutting down'],
    ]);
  });

  it('stops waiting when the signal aborts mid-detection, even if the adapter hangs', async () => {
    const { router, ollama } = setup();
    let release: () => void = () => undefined;
    ollama.gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const controller = new AbortController();
    const pending = router.prepare({ signal: controller.signal });
    await expect.poll(() => ollama.calls.length).toBe(2);
    controller.abort();
    const report = await pending;
    expect(report.detected).toEqual([]);
    expect(report.failed).toHaveLength(2);
    expect(report.failed.every((f) => f.error.name === 'AbortError')).toBe(true);
    release();
  });
});
