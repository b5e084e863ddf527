import { AnthropicAdapter } from '@yourtool/anthropic';
import { createEventBus } from '@yourtool/core';
import { MemorySessionStore } from '@yourtool/core/memory-store';
import { defaultPriceTable } from '@yourtool/pricing';
import { ModelRegistry, parseRoutingConfig, Router } from '@yourtool/router';
import { describe, expect, it, vi } from 'vitest';
import {
  dropOldestTurns,
  InvalidManagerOptionError,
  SessionManager,
  type SessionManagerOptions,
  ToolRegistry,
} from '../src/index.js';

/**
 * Every option of the SessionManager is checked when it is built: a value it cannot use is an
 * InvalidManagerOptionError naming the field, and nothing is stored (before, `maxSteps: -1`
 * stored the user message and ended `end_turn` without a model call, `maxOutputTokens: -5`
 * failed every turn after storing it, `systemPrompt: "text"` was a TypeError at turn time,
 * `tools: "echo"` a ToolDefinitionError that did not name `tools`).
 */

function router(): Router {
  const registry = ModelRegistry.fromYaml(
    `
adapters:
  anthropic: { type: anthropic, api_key: sk-ant-options-0000, base_url: http://127.0.0.1:9 }
models:
  anthropic:claude-sonnet-4-6: { adapter: anthropic, wire_name: claude-sonnet-4-6, aliases: [sonnet] }
`,
    { factories: { anthropic: (config, runtime) => new AnthropicAdapter(config, runtime) } },
  );
  return new Router({ registry, config: parseRoutingConfig('global_default: sonnet') });
}

/** A store that records every write, and valid options on it. */
function setup() {
  const store = new MemorySessionStore();
  const writes = ['createSession', 'updateSession', 'appendMessage', 'updateMessage'].map((name) =>
    vi.spyOn(store, name as 'createSession'),
  );
  const options: SessionManagerOptions = {
    store,
    router: router(),
    pricing: defaultPriceTable(),
  };
  return { store, writes, options };
}

/** [field at fault, the options' field, the bad value, text the message must hold]. */
const CASES: Array<[string, keyof SessionManagerOptions, unknown, string]> = [
  // the four of the issue
  [
    'maxSteps',
    'maxSteps',
    -1,
    'maxSteps must be a whole number of model calls, 1 or more (got -1)',
  ],
  [
    'maxOutputTokens',
    'maxOutputTokens',
    -5,
    'maxOutputTokens must be a whole number of tokens, 1 or more (got -5)',
  ],
  ['systemPrompt', 'systemPrompt', 'text', 'write ["text"]'],
  ['tools', 'tools', 'echo', 'tools must be a ToolRegistry'],
  // a wrong type or value of each option
  ['store', 'store', 'sqlite:./sessions.db', 'store must be a SessionStore'],
  ['store', 'store', { getSession: () => null }, 'it has no createSession()'],
  ['router', 'router', null, 'router must be a Router, got null'],
  ['router', 'router', {}, 'router must be a Router: it has no route()'],
  ['pricing', 'pricing', 'default', 'pricing must be a PriceTable'],
  ['costOptions', 'costOptions', '1h', 'costOptions must be an object'],
  ['costOptions.cacheWriteTtl', 'costOptions', { cacheWriteTtl: '2h' }, "'5m', '1h'"],
  ['bus', 'bus', {}, 'bus must be an EventBus: it has no emit()'],
  ['tools', 'tools', [], 'tools must be a ToolRegistry'],
  ['confirm', 'confirm', true, 'confirm must be a ConfirmHook (a function), got true'],
  ['systemPrompt[1]', 'systemPrompt', ['You are careful.', 42], 'systemPrompt[1] must be'],
  ['maxSteps', 'maxSteps', 0, '1 or more (got 0)'],
  ['maxSteps', 'maxSteps', 1.5, '1 or more (got 1.5)'],
  ['maxSteps', 'maxSteps', '8', 'got the string "8"'],
  ['maxOutputTokens', 'maxOutputTokens', Number.NaN, 'got NaN'],
  ['compaction', 'compaction', { strategy: 'drop' }, 'compaction must be a CompactionHook'],
  ['keptSessions', 'keptSessions', '64', 'keptSessions must be a whole number of sessions'],
  ['keptHistoryBytes', 'keptHistoryBytes', -1, 'keptHistoryBytes must be a whole number of bytes'],
  ['logger', 'logger', {}, 'logger must be a Logger'],
  ['logger.info', 'logger', { warn: () => {}, info: 'yes' }, 'logger.info must be a function'],
];

describe('SessionManager options', () => {
  it.each(CASES)(
    '%s: %j is refused, naming the field, with nothing stored',
    async (field, key, value, text) => {
      const { store, writes, options } = setup();
      let thrown: unknown;
      try {
        new SessionManager({ ...options, [key]: value } as SessionManagerOptions);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(InvalidManagerOptionError);
      const error = thrown as InvalidManagerOptionError;
      expect(error.code).toBe('invalid_manager_option');
      expect(error.option).toBe(field);
      expect(error.message).toContain(field);
      expect(error.message).toContain(text);
      for (const write of writes) expect(write).not.toHaveBeenCalled();
      expect((await store.listSessions()).sessions).toEqual([]);
    },
  );

  it.each(['store', 'router', 'pricing'] as const)('%s is required', (key) => {
    const { options } = setup();
    const { [key]: _left, ...rest } = options;
    expect(() => new SessionManager(rest as SessionManagerOptions)).toThrow(
      expect.objectContaining({ option: key, message: `${key} is required` }),
    );
  });

  it('no options object at all is refused, naming it', () => {
    expect(() => new SessionManager(undefined as unknown as SessionManagerOptions)).toThrow(
      expect.objectContaining({ name: 'InvalidManagerOptionError', option: 'options' }),
    );
  });

  it('takes every option given right', async () => {
    const { store, writes, options } = setup();
    const manager = new SessionManager({
      ...options,
      costOptions: { cacheWriteTtl: { oneHourTokens: 0 } },
      bus: createEventBus(),
      tools: new ToolRegistry(),
      confirm: () => false,
      systemPrompt: ['You are careful.', () => null],
      maxSteps: 1,
      maxOutputTokens: 1,
      compaction: dropOldestTurns(),
      keptSessions: 0,
      keptHistoryBytes: 0,
      logger: console,
    });
    expect(manager.tools).toBeInstanceOf(ToolRegistry);
    for (const write of writes) expect(write).not.toHaveBeenCalled();
    expect((await store.listSessions()).sessions).toEqual([]);
  });
});

describe('SessionManager options: a key that is no option', () => {
  /** The error building a manager with `extra` on valid options throws; nothing is stored. */
  async function refused(extra: Record<string, unknown>): Promise<InvalidManagerOptionError> {
    const { store, writes, options } = setup();
    let thrown: unknown;
    try {
      new SessionManager({ ...options, ...extra } as SessionManagerOptions);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidManagerOptionError);
    for (const write of writes) expect(write).not.toHaveBeenCalled();
    expect((await store.listSessions()).sessions).toEqual([]);
    return thrown as InvalidManagerOptionError;
  }

  it('is refused with the option it was meant to be (before, maxStep: 3 was ignored)', async () => {
    const error = await refused({ maxStep: 3 });
    expect(error.code).toBe('invalid_manager_option');
    expect(error.option).toBe('maxStep');
    expect(error.message).toBe('unknown option "maxStep"; did you mean "maxSteps"?');
  });

  it('is named alone when no option is close', async () => {
    const error = await refused({ colour: 'red' });
    expect(error.option).toBe('colour');
    expect(error.message).toBe('unknown option "colour"');
  });

  it('of telemetry is named with its path and the nearest telemetry option', async () => {
    const error = await refused({ telemetry: { agentNam: 'support' } });
    expect(error.option).toBe('telemetry.agentNam');
    expect(error.message).toBe(
      'unknown option "telemetry.agentNam"; did you mean "telemetry.agentName"?',
    );
  });
});
