import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemorySessionStore } from '@yourtool/core/memory-store';
import { describe, expect, it, vi } from 'vitest';
import {
  createRuntime,
  InvalidRuntimeOptionError,
  type RuntimeOptions,
  RuntimeSetupError,
} from '../src/index.js';

/**
 * Every option of createRuntime is checked before anything is read, loaded, opened or stored:
 * a value it cannot use is an InvalidRuntimeOptionError (a RuntimeSetupError with code
 * `invalid_option`) naming the field. The options it hands to the session manager are checked
 * as the manager checks them.
 */

const MODELS = `
adapters:
  anthropic: { type: anthropic, api_key: sk-ant-options-0000, base_url: http://127.0.0.1:9 }
models:
  anthropic:claude-sonnet-4-6: { adapter: anthropic, wire_name: claude-sonnet-4-6, aliases: [sonnet] }
`;

/** A store that records every write, and valid options on it. */
function setup() {
  const store = new MemorySessionStore();
  const writes = ['createSession', 'updateSession', 'appendMessage', 'updateMessage'].map((name) =>
    vi.spyOn(store, name as 'createSession'),
  );
  const options: RuntimeOptions = { models: MODELS, store, logger: false };
  return { store, writes, options };
}

/** [field at fault, the options' field, the bad value, text the message must hold]. */
const CASES: Array<[string, keyof RuntimeOptions, unknown, string]> = [
  // the four of the issue, through createRuntime
  [
    'maxSteps',
    'maxSteps',
    -1,
    'maxSteps must be a whole number of model calls, 1 or more (got -1)',
  ],
  ['maxOutputTokens', 'maxOutputTokens', -5, 'maxOutputTokens must be a whole number of tokens'],
  ['systemPrompt', 'systemPrompt', 'text', 'write ["text"]'],
  ['tools', 'tools', 'echo', 'tools must be a ToolRegistry'],
  // a wrong type or value of each option
  ['models', 'models', 42, 'models must be YAML text, { file } or a parsed document, got 42'],
  ['models.file', 'models', { file: 5 }, 'models.file must be a path'],
  ['routing', 'routing', true, 'routing must be YAML text'],
  ['store', 'store', 42, 'store must be a SessionStore'],
  ['store', 'store', {}, 'it has no createSession()'],
  ['store', 'store', '', 'store must be a non-empty URL'],
  ['pricing', 'pricing', 'default', 'pricing must be a PriceTable'],
  ['costOptions', 'costOptions', 'cheap', 'costOptions must be an object'],
  ['tools[0]', 'tools', [{ name: 'echo' }], 'tools[0] must be a tool handler'],
  ['confirm', 'confirm', 'yes', 'confirm must be a ConfirmHook'],
  ['systemPrompt[0]', 'systemPrompt', [null], 'systemPrompt[0] must be'],
  ['maxSteps', 'maxSteps', '8', 'got the string "8"'],
  ['maxOutputTokens', 'maxOutputTokens', 2.5, '1 or more (got 2.5)'],
  ['compaction', 'compaction', 'summarize', 'compaction must be a CompactionHook'],
  ['partialRowAfterMs', 'partialRowAfterMs', -1, 'partialRowAfterMs'],
  [
    'keptHistoryBytes',
    'keptHistoryBytes',
    '64MiB',
    'keptHistoryBytes must be a whole number of bytes, 0 or more (got the string "64MiB")',
  ],
  // passed on to the session manager, which checks it
  ['turnLease', 'turnLease', 30, 'turnLease must be an object'],
  ['logger', 'logger', true, 'logger must be a Logger'],
  ['env', 'env', 'production', 'env must be an object'],
  ['env.KEY', 'env', { KEY: 1 }, 'env.KEY must be a string'],
  ['factories.anthropic', 'factories', { anthropic: 'AnthropicAdapter' }, 'an adapter factory'],
  ['retry', 'retry', 'fast', 'retry must be an object'],
  ['retry.baseDelayMs', 'retry', { baseDelayMs: -1 }, 'retry.baseDelayMs must be a number of ms'],
  [
    'availability.failureThreshold',
    'availability',
    { failureThreshold: 'x' },
    'availability.failureThreshold must be a number',
  ],
];

describe('createRuntime options', () => {
  it.each(CASES)(
    '%s: %j is refused, naming the field, with nothing stored',
    async (field, key, value, text) => {
      const { store, writes, options } = setup();
      const thrown = await createRuntime({ ...options, [key]: value } as RuntimeOptions).catch(
        (error: unknown) => error,
      );
      expect(thrown).toBeInstanceOf(InvalidRuntimeOptionError);
      expect(thrown).toBeInstanceOf(RuntimeSetupError);
      const error = thrown as InvalidRuntimeOptionError;
      expect(error.code).toBe('invalid_option');
      expect(error.option).toBe(field);
      expect(error.message).toContain(field);
      expect(error.message).toContain(text);
      for (const write of writes) expect(write).not.toHaveBeenCalled();
      expect((await store.listSessions()).sessions).toEqual([]);
    },
  );

  it('no options, or no models, is refused naming models', async () => {
    for (const options of [undefined, {}]) {
      await expect(createRuntime(options as unknown as RuntimeOptions)).rejects.toMatchObject({
        name: 'InvalidRuntimeOptionError',
        option: 'models',
      });
    }
  });

  it('a bad option is refused before a store URL is opened: no database file is made', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'runtime-options-')), 'sessions.db');
    await expect(
      createRuntime({ models: MODELS, store: `sqlite:${file}`, maxSteps: -1, logger: false }),
    ).rejects.toMatchObject({ option: 'maxSteps' });
    expect(existsSync(file)).toBe(false);
  });

  it('takes the options given right', async () => {
    const { writes, options } = setup();
    const runtime = await createRuntime({
      ...options,
      tools: [],
      systemPrompt: ['You are careful.'],
      maxSteps: 2,
      maxOutputTokens: 256,
      env: { UNUSED: undefined },
      retry: { baseDelayMs: 1, maxDelayMs: 2, random: () => 0 },
      availability: { failureThreshold: 2, now: () => 0 },
    });
    expect(runtime.sessions.tools.definitions()).toEqual([]);
    await runtime.close();
    for (const write of writes) expect(write).not.toHaveBeenCalled();
  });
});
