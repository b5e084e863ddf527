import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openStore } from '@yourtool/store';
import {
  overloaded,
  type ScriptedProvider,
  startScriptedProvider,
  text,
  toolCall,
  usage,
} from '@yourtool/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MODELS, runAgent, tempWorkspace } from './helpers.js';

let provider: ScriptedProvider;
beforeAll(async () => {
  provider = await startScriptedProvider();
});
afterEach(() => provider.clear());
afterAll(() => provider.close());

describe('the agent', () => {
  it('reads at once, writes after a yes, and shows the running cost', async () => {
    const dir = tempWorkspace();
    provider
      .reply(toolCall('read_file', { path: 'missing.md' }))
      .reply(toolCall('write_file', { path: 'notes.md', content: 'hello' }))
      .reply(text('Done.'), usage({ input_tokens: 1000, output_tokens: 100 }));
    const { output } = await runAgent(['Write notes.md', 'y'], { provider, dir });
    expect(output).toContain('[read_file]\n');
    expect(output).toContain('Run write_file {"path":"notes.md","content":"hello"}? [y/N] ');
    expect(output).toMatch(
      /Done\.\n\[anthropic:claude-sonnet-4-6 · turn \$\S+ · session \$\S+\]\n> $/,
    );
    expect(readFileSync(join(dir, 'notes.md'), 'utf8')).toBe('hello');
  });

  it('Ctrl-C during a confirmation cancels the turn: the tool does not run, the next turn goes on', async () => {
    const dir = tempWorkspace();
    provider
      .reply(toolCall('write_file', { path: 'notes.md', content: 'hello' }))
      .reply(text('Fine, I will not.'));
    const { agent, output } = await runAgent(['Write notes.md', '^C', 'Never mind'], {
      provider,
      dir,
    });
    expect(output).toMatch(
      /\? \[y\/N\] \n\[anthropic:claude-sonnet-4-6 · turn \S+ · session \S+ · cancelled\]\n> Fine, I will not\./,
    );
    expect(existsSync(join(dir, 'notes.md'))).toBe(false);
    // the refused call has its "not run" result, so the next request was a valid history
    const store = await openStore(`sqlite:${join(dir, 'agent.db')}`);
    const { messages } = await store.loadMessages(agent.session.id);
    await store.close();
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user', 'assistant']);
    expect(messages[2]?.content[0]).toMatchObject({ type: 'tool_result', is_error: true });
    expect(provider.requests[1]?.lastUserText).toMatch(/not run\.Never mind$/);
  });

  it('falls back within the turn when Claude answers 529 overloaded', async () => {
    const dir = tempWorkspace();
    provider.reply(overloaded()).reply(text('From Gemini.'));
    const routing = 'global_default: sonnet\nfallbacks:\n  sonnet: [gemini]\n';
    const { output } = await runAgent(['Hello'], { provider, dir, routing });
    expect(output).toContain(
      '(anthropic:claude-sonnet-4-6 failed: rate_limit; continuing on google:gemini-2.5-flash)\n',
    );
    expect(output).toMatch(
      /From Gemini\.\n\[google:gemini-2\.5-flash · turn \$\S+ · session \$\S+\]/,
    );
    expect(provider.requests.map((r) => r.format)).toEqual(['anthropic', 'gemini']);
  });

  it('summarizes older turns when the history outgrows the window', async () => {
    const dir = tempWorkspace();
    const models = provider.modelsYaml({
      models: {
        ...MODELS,
        'anthropic:claude-sonnet-4-6': {
          aliases: ['sonnet'],
          capabilities: { max_context_tokens: 4000 },
        },
      },
    });
    provider
      .reply(text('Noted, part 1.'))
      .reply(text('Noted, part 2.'))
      .reply(text('The user sent parts 1 and 2 of a long text.'))
      .reply(text('Noted, part 3.'));
    const long = (n: number) => `Part ${n}. ${'lorem ipsum dolor sit amet '.repeat(300)}`;
    const { output } = await runAgent([long(1), long(2), long(3)], {
      provider,
      dir,
      models,
      summarizer: 'gemini',
      maxOutputTokens: 512,
    });
    expect(output).toContain('(older turns summarized)\n');
    expect(output).toContain('Noted, part 3.');
    expect(provider.requests.map((r) => r.format)).toEqual([
      'anthropic',
      'anthropic',
      'gemini',
      'anthropic',
    ]);
    const last = provider.requests[3];
    expect(JSON.stringify(last?.body)).toContain('The user sent parts 1 and 2 of a long text.');
    expect(last?.messages.some((m) => m.text.startsWith('Part 1.'))).toBe(false);
  });

  it('resumes the session of its workspace, history, /model choice and exact cost included', async () => {
    const dir = tempWorkspace();
    provider.reply(text('Hi!'), usage({ input_tokens: 1000, output_tokens: 100 }));
    const first = await runAgent(['Hello', '/model gemini'], { provider, dir });
    expect(first.output).toMatch(/^new session (sess_\w+) \(\$0 so far\)\n/);
    expect(first.output).toContain(
      '[anthropic:claude-sonnet-4-6 · turn $0.0045 · session $0.0045]',
    );

    provider.reply(text('Again.'), usage({ input_tokens: 2000, output_tokens: 10 }));
    const second = await runAgent(['/model', 'Still there?'], { provider, dir });
    expect(second.agent.session.id).toBe(first.agent.session.id);
    expect(second.output).toMatch(
      /^resumed session sess_\w+ \(\$0.0045 so far\)\n> model: google:gemini-2.5-flash\n/,
    );
    // 0.0045 + 2000 × 0.30 / 1M + 10 × 2.50 / 1M
    expect(second.output).toContain(
      '[google:gemini-2.5-flash · turn $0.000625 · session $0.005125]',
    );
    expect(provider.requests[1]?.messages.map((m) => [m.role, m.text])).toEqual([
      ['user', 'Hello'],
      ['assistant', 'Hi!'],
      ['user', 'Still there?'],
    ]);
  });
});

describe('the agent with an MCP server', () => {
  it("calls the server's tool after a yes, and ends the server with the agent", async () => {
    const dir = tempWorkspace();
    const server = fileURLToPath(
      new URL('../../../packages/mcp/test/fixtures/stdio-server.mjs', import.meta.url),
    );
    const mcp = [
      'mcp_servers:',
      '  notes:',
      `    command: ${JSON.stringify(process.execPath)}`,
      `    args: [${JSON.stringify(server)}]`,
      '    allow: [echo]',
    ].join('\n');
    provider.reply(toolCall('notes_echo', { text: 'from MCP' })).reply(text('Echoed.'));
    const { agent, output } = await runAgent(['Echo something', 'y'], { provider, dir, mcp });
    expect(output).toContain('Run notes_echo {"text":"from MCP"}? [y/N] ');
    expect(output).toContain('[notes_echo]\n');
    expect(output).toContain('Echoed.');
    expect(JSON.stringify(provider.requests[1]?.messages)).toContain('from MCP');
    expect(agent.runtime.mcp?.status()[0]?.state).toBe('closed');
  });
});
