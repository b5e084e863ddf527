import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openStore } from '@yourtool/store';
import { chunkDelay, type ScriptedProvider, text, toolCall, usage } from '@yourtool/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { run, start, startScriptedProvider, workspace } from './helpers.js';

let provider: ScriptedProvider;
let dir: { dir: string; dispose(): void };
beforeAll(async () => {
  provider = await startScriptedProvider();
});
afterAll(() => provider.close());
afterEach(() => {
  provider.clear();
  dir?.dispose();
});

/** The messages of the one session of the chat's store. */
async function storedMessages(file: string) {
  const store = await openStore(`sqlite:${file}`);
  try {
    const [session] = (await store.listSessions()).sessions;
    return (await store.loadMessages(session?.id ?? '')).messages;
  } finally {
    await store.close();
  }
}

describe('yourtool chat', () => {
  it('streams a tool loop with a confirmation, then /model swaps to Gemini with the history', async () => {
    dir = workspace(provider);
    provider
      .reply(
        text("I'll write it.", { chunks: 3 }),
        toolCall('write_file', { path: 'notes.md', content: 'hello' }),
        usage({ input_tokens: 1000, output_tokens: 100 }),
      )
      .reply(text('Done.'), usage({ input_tokens: 1200, output_tokens: 20 }))
      .reply(text('Hi from Gemini.'), usage({ input_tokens: 300, output_tokens: 10 }));
    const input = [
      'Write notes.md saying hello',
      'y',
      '/model gemini',
      '/model',
      'Who are you?',
      '/cost',
      '',
    ];
    const { code, stdout, stderr } = await run(
      ['chat', '--create', '--store', 'sqlite:chat.db'],
      dir.dir,
      {
        input: input.join('\n'),
      },
    );
    expect(code).toBe(0);
    expect(stdout).toBe(
      [
        "> Write notes.md saying hello\nI'll write it.",
        'Allow write_file (write) {"path":"notes.md","content":"hello"}? [y/N] y',
        '→ write_file {"path":"notes.md","content":"hello"}',
        '← write_file: wrote 5 bytes to notes.md',
        'Done.',
        '[anthropic:claude-sonnet-4-6 · turn $0.0084 · session $0.0084]',
        '> /model gemini',
        'model: google:gemini-2.5-flash',
        '> /model',
        'model: google:gemini-2.5-flash',
        '> Who are you?',
        'Hi from Gemini.',
        '[google:gemini-2.5-flash · turn $0.000115 · session $0.008515]',
        '> /cost',
        'session cost $0.008515',
        '> \n',
      ].join('\n'),
    );
    expect(stderr).toMatch(/^session sess_\w+ · model \(routing decides\) · \/help for commands\n/);
    expect(stderr).toMatch(/saved; resume it with: yourtool chat --session sess_\w+\n$/);
    expect(readFileSync(join(dir.dir, 'notes.md'), 'utf8')).toBe('hello');
    expect(provider.requests.map((r) => r.format)).toEqual(['anthropic', 'anthropic', 'gemini']);
    // Gemini got the whole tool loop that happened on Claude
    expect(
      provider.requests[2]?.messages.map((m) => [m.role, m.toolCalls.join() || m.text]),
    ).toEqual([
      ['user', 'Write notes.md saying hello'],
      ['assistant', 'write_file'],
      ['tool', expect.stringContaining('wrote 5 bytes to notes.md')],
      ['assistant', 'Done.'],
      ['user', 'Who are you?'],
    ]);

    // the session persists: resume it
    const id = /--session (sess_\w+)/.exec(stderr)?.[1] ?? '';
    provider.reply(text('Welcome back.'));
    const resumed = await run(['chat', '--store', 'sqlite:chat.db', '--session', id], dir.dir, {
      input: 'Still there?\n',
    });
    expect(resumed.stdout).toContain('Welcome back.\n[google:gemini-2.5-flash · turn $');
    expect(provider.requests.at(-1)?.messages).toHaveLength(7);
  });

  it('Ctrl-C at a confirmation cancels the turn, not the chat; two at the prompt quit', async () => {
    dir = workspace(provider);
    provider
      .reply(toolCall('write_file', { path: 'notes.md', content: 'hello' }))
      .reply(text('Still here.'));
    const chat = start(['chat', '--create', '--store', 'sqlite:chat.db'], dir.dir);
    chat.child.stdin.write('Write notes.md\n');
    await chat.waitFor(/Allow write_file \(write\) .*\? \[y\/N\] $/);
    chat.child.kill('SIGINT');
    await chat.waitFor(/\(turn cancelled\)\n/, 'stderr');
    await chat.waitFor(/\[anthropic:claude-sonnet-4-6 · turn \$\S+ · session \$\S+\]\n> $/);
    chat.child.stdin.write('Are you there?\n');
    await chat.waitFor(/Still here\.\n\[.*\]\n> $/);
    chat.child.kill('SIGINT');
    await chat.waitFor(/press Ctrl-C again to quit/, 'stderr');
    chat.child.kill('SIGINT');
    const { code, stderr } = await chat.done;
    expect(code).toBe(0);
    expect(stderr).toContain('^C cancelling the turn');
    expect(existsSync(join(dir.dir, 'notes.md'))).toBe(false);
    // the refused call got its result, so the next turn went on from a valid history
    const messages = await storedMessages(join(dir.dir, 'chat.db'));
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user', 'assistant']);
    expect(messages[2]?.content[0]).toMatchObject({ type: 'tool_result', is_error: true });
    expect(provider.requests[1]?.lastUserText).toMatch(/was not run\.Are you there\?$/);
  });

  it('Ctrl-C while a reply streams stores it as cancelled and keeps the chat', async () => {
    dir = workspace(provider);
    provider.reply(
      chunkDelay(200),
      text('one two three four five six seven eight', { chunks: 40 }),
    );
    const chat = start(['chat', '--create', '--store', 'sqlite:chat.db'], dir.dir);
    chat.child.stdin.write('Count slowly\n');
    await chat.waitFor(/> Count slowly\none/);
    chat.child.kill('SIGINT');
    await chat.waitFor(/\(turn cancelled\)/, 'stderr');
    chat.child.stdin.end('/exit\n');
    const { code, stdout } = await chat.done;
    expect(code).toBe(0);
    expect(stdout).not.toContain('eight');
    const messages = await storedMessages(join(dir.dir, 'chat.db'));
    expect(messages.map((m) => [m.role, m.metadata.status])).toEqual([
      ['user', 'complete'],
      ['assistant', 'cancelled'],
    ]);
  });

  it('reports a model it cannot swap to, with suggestions, and goes on', async () => {
    dir = workspace(provider);
    const { code, stdout, stderr } = await run(
      ['chat', '--create', '--no-tools', '--store', 'sqlite:chat.db'],
      dir.dir,
      {
        input: '/model gemni\n/nope\n',
      },
    );
    expect(code).toBe(0);
    expect(stdout).toBe('> /model gemni\n> /nope\n> \n');
    expect(stderr).toMatch(/error: .*gemni.*gemini/);
    expect(stderr).toContain('unknown command /nope (try /help)');
  });
});
