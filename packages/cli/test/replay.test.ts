import { join } from 'node:path';
import { createRuntime } from '@yourtool/runtime';
import { type ScriptedProvider, text, usage } from '@yourtool/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODELS, run, seedStore, startScriptedProvider, workspace } from './helpers.js';

let provider: ScriptedProvider;
let dir: { dir: string; dispose(): void };
let store: string;
let session: string;

beforeAll(async () => {
  provider = await startScriptedProvider();
  dir = workspace(provider);
  store = `sqlite:${join(dir.dir, 'sessions.db')}`;
  [session] = (await seedStore(provider, store)) as [string];
  // a second turn on the tool loop's session
  const runtime = await createRuntime({
    models: provider.modelsYaml({ models: MODELS }),
    store,
    logger: false,
  });
  provider.reply(text('Foo, in one line.'), usage({ input_tokens: 1500, output_tokens: 10 }));
  await runtime.sessions.sendAndWait(session, 'Say it in one line.');
  await runtime.close();
  provider.clear();
});
afterAll(async () => {
  await provider.close();
  dir.dispose();
});

describe('yourtool replay', () => {
  it("sends the history to another model and shows its reply and cost next to the original's", async () => {
    provider.reply(text('Foo: a project.'), usage({ input_tokens: 1400, output_tokens: 8 }));
    const { code, stdout, stderr } = await run(
      ['replay', session, '--model', 'gemini', '--store', store],
      dir.dir,
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(
      new RegExp(
        `^session ${session}, reply to \\w+: "Say it in one line\\."\n\n` +
          'original anthropic:claude-sonnet-4-6 · \\$0\\.00465 · 1500 in / 10 out tokens\n' +
          ' {2}Foo, in one line\\.\n\n' +
          'replay {3}google:gemini-2\\.5-flash · \\$0\\.\\d+ · 1400 in / 8 out tokens\n' +
          ' {2}Foo: a project\\.\n$',
      ),
    );
    // the whole history up to that message, its tool loop included, in Gemini's format
    const [request] = provider.requests;
    expect(request?.format).toBe('gemini');
    expect(request?.messages.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
    ]);
    expect(request?.tools).toEqual(['read_file']);
  });

  it('replays an earlier message with --at, as JSON; nothing is stored', async () => {
    const before = await run(['sessions', 'export', session, '--store', store], dir.dir);
    const shown = await run(['sessions', 'show', session, '--json', '--store', store], dir.dir);
    const firstUser = (JSON.parse(shown.stdout) as { messages: Array<{ id: string }> }).messages[0]
      ?.id;
    provider.reply(text('Let me look.'), usage({ input_tokens: 100, output_tokens: 5 }));
    const { code, stdout } = await run(
      ['replay', session, '--model', 'sonnet', '--at', firstUser ?? '', '--json', '--store', store],
      dir.dir,
    );
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({
      session_id: session,
      user_message_id: firstUser,
      original: {
        model: 'anthropic:claude-sonnet-4-6',
        text: '',
        tool_calls: [{ name: 'read_file', input: { path: 'README.md' } }],
        cost_usd: '0.0045',
      },
      replay: { model: 'anthropic:claude-sonnet-4-6', text: 'Let me look.', cost_usd: '0.000375' },
    });
    const after = await run(['sessions', 'export', session, '--store', store], dir.dir);
    expect(after.stdout).toBe(before.stdout);
  });

  it('names a model it does not know, with suggestions', async () => {
    const { code, stderr } = await run(
      ['replay', session, '--model', 'gemni', '--store', store],
      dir.dir,
    );
    expect(code).toBe(1);
    expect(stderr).toMatch(/^yourtool: .*gemni.*gemini.*\n$/);
  });
});
