import { createRuntime, type Runtime } from '@yourtool/runtime';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  httpError,
  type ScriptedProvider,
  startScriptedProvider,
  text,
  thinking,
  toolCall,
  usage,
} from '../src/index.js';

let provider: ScriptedProvider;
beforeAll(async () => {
  provider = await startScriptedProvider();
});
afterAll(() => provider.close());
const opened: Runtime[] = [];
afterEach(async () => {
  provider.clear();
  await Promise.all(opened.splice(0).map((r) => r.close()));
});

const readFile = {
  definition: {
    name: 'read_file',
    description: 'Read a UTF-8 text file from the workspace.',
    input_schema: {
      type: 'object' as const,
      properties: { path: { type: 'string' as const } },
      required: ['path'],
    },
    side_effects: 'read' as const,
  },
  run: async ({ path }: Record<string, unknown>) => `# Project Foo (${String(path)})`,
};

/** One model of each wire format. */
const MODELS = {
  'anthropic:claude-sonnet-4-6': { aliases: ['sonnet'] },
  'openai:gpt-5': { aliases: ['gpt5'], api: 'responses' as const },
  'openai:gpt-4.1': { aliases: ['gpt41'] },
  'google:gemini-2.5-flash': { aliases: ['gemini'] },
  'ollama:qwen3:8b': { aliases: ['qwen'] },
  'local:qwen3-8b': { aliases: ['compat'] },
};

describe('modelsYaml', () => {
  it('writes one adapter per configuration, each reaching the provider', () => {
    const doc = parse(provider.modelsYaml({ models: MODELS })) as {
      adapters: Record<string, Record<string, unknown>>;
      models: Record<string, Record<string, unknown>>;
    };
    expect(Object.keys(doc.adapters)).toEqual([
      'anthropic',
      'openai',
      'openai_2',
      'google',
      'ollama',
      'local',
    ]);
    expect(doc.adapters.anthropic).toMatchObject({ type: 'anthropic', base_url: provider.url });
    expect(doc.adapters.openai).toMatchObject({
      base_url: `${provider.url}/v1`,
      options: { api: 'responses' },
      max_retries: 0,
    });
    expect(doc.adapters.ollama).not.toHaveProperty('api_key');
    expect(doc.adapters.local).toMatchObject({
      type: 'openai-compatible',
      options: { provider: 'local', models: { 'qwen3-8b': { supports_tools: true } } },
    });
    expect(doc.models['openai:gpt-4.1']).toMatchObject({
      adapter: 'openai_2',
      wire_name: 'gpt-4.1',
    });
    expect(() => provider.modelsYaml({ models: { nocolon: {} } })).toThrow(/canonical model id/);
  });

  it('hands createRuntime a working stack: a tool loop, then the history on every format', async () => {
    const runtime = await createRuntime({
      models: provider.modelsYaml({ models: MODELS }),
      tools: [readFile],
      logger: false,
    });
    opened.push(runtime);
    provider
      .reply(
        thinking('Need the file.', { signature: 'sig-1' }),
        toolCall('read_file', { path: 'README.md' }),
      )
      .reply(text('It is Project Foo.'), usage({ input_tokens: 120, output_tokens: 8 }));
    const session = await runtime.sessions.createSession({ workspace_path: '/work/foo' });
    const first = await runtime.sessions.sendAndWait(session.id, 'What is in README.md?');
    expect([first.end, first.text, first.steps]).toEqual(['end_turn', 'It is Project Foo.', 2]);
    expect(first.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);

    for (const alias of ['gpt5', 'gpt41', 'gemini', 'qwen', 'compat']) {
      await runtime.sessions.swapModel(session.id, alias);
      provider.reply(text(`Hello from ${alias}.`));
      const turn = await runtime.sessions.sendAndWait(session.id, `Hi ${alias}`);
      expect(turn.text).toBe(`Hello from ${alias}.`);
    }
    expect(provider.requests.map((r) => r.format)).toEqual([
      'anthropic',
      'anthropic',
      'openai-responses',
      'openai-chat',
      'gemini',
      'ollama',
      'openai-chat',
    ]);
    // every later request carries the tool loop that happened on Claude
    for (const recorded of provider.requests.slice(2)) {
      expect(recorded.messages.slice(0, 4)).toMatchObject([
        { role: 'user', text: 'What is in README.md?' },
        { role: 'assistant', toolCalls: ['read_file'] },
        { role: 'tool', text: expect.stringContaining('# Project Foo') },
        { role: 'assistant', text: 'It is Project Foo.' },
      ]);
    }
    expect(provider.requests.at(-1)?.path).toBe('/v1/chat/completions');
  });

  it('retries only when asked: a 429 with its retry hint, then the reply', async () => {
    const runtime = await createRuntime({
      models: provider.modelsYaml({
        models: { 'anthropic:claude-sonnet-4-6': {} },
        maxRetries: 1,
      }),
      logger: false,
    });
    opened.push(runtime);
    provider.reply(httpError(429, { retryAfterSeconds: 0.05 })).reply(text('After waiting.'));
    const session = await runtime.sessions.createSession({ workspace_path: '/w' });
    const turn = await runtime.sessions.sendAndWait(session.id, 'Hello');
    expect(turn.text).toBe('After waiting.');
    expect(provider.requests).toHaveLength(2);
  });
});
