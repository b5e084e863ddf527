import { join } from 'node:path';
import type { ScriptedProvider } from '@yourtool/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, seedStore, startScriptedProvider, workspace } from './helpers.js';

let provider: ScriptedProvider;
let dir: { dir: string; dispose(): void };
let store: string;
let claude: string;
let gemini: string;

beforeAll(async () => {
  provider = await startScriptedProvider();
  dir = workspace();
  store = `sqlite:${join(dir.dir, 'sessions.db')}`;
  [claude, gemini] = (await seedStore(provider, store)) as [string, string];
});
afterAll(async () => {
  await provider.close();
  dir.dispose();
});

describe('yourtool sessions list', () => {
  it('lists sessions, newest first, with messages, exact cost and last model', async () => {
    const { code, stdout, stderr } = await run(['sessions', 'list', '--store', store], dir.dir);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toMatch(
      /^SESSION\s+UPDATED \(UTC\)\s+MESSAGES\s+COST\s+LAST MODEL\s+WORKSPACE$/,
    );
    expect(lines[1]).toMatch(
      new RegExp(`^${gemini}\\s.*\\s2\\s+\\$\\S+\\s+google:gemini-2.5-flash\\s+/work/bar$`),
    );
    expect(lines[2]).toMatch(
      new RegExp(`^${claude}\\s.*\\s4\\s+\\$0.0084\\s+anthropic:claude-sonnet-4-6\\s+/work/foo$`),
    );
  });

  it('prints JSON, takes YOURTOOL_STORE, filters by workspace and pages', async () => {
    const env = { YOURTOOL_STORE: store };
    const json = await run(['sessions', 'list', '--json', '--workspace', '/work/foo'], dir.dir, {
      env,
    });
    expect(json.code).toBe(0);
    const sessions = JSON.parse(json.stdout) as Array<{
      id: string;
      stats: { total_cost_usd: string };
    }>;
    expect(sessions.map((s) => [s.id, s.stats.total_cost_usd])).toEqual([[claude, '0.0084']]);
    const page = await run(['sessions', 'list', '--limit', '1'], dir.dir, { env });
    expect(page.stdout.trim().split('\n')).toHaveLength(2);
    expect(page.stderr).toMatch(/more sessions/);
    const all = await run(['sessions', 'list', '--limit', '1', '--all'], dir.dir, { env });
    expect(all.stdout.trim().split('\n')).toHaveLength(3);
  });

  it('says so when the store file is not there, without creating it', async () => {
    const missing = join(dir.dir, 'nope.db');
    const { code, stdout, stderr } = await run(
      ['sessions', 'list', '--store', `sqlite:${missing}`],
      dir.dir,
    );
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      `yourtool: no store at ${missing}: pass --store sqlite:<file> or postgres://..., or set YOURTOOL_STORE\n`,
    );
  });
});

describe('yourtool sessions show', () => {
  it('shows the session and its messages: tool calls, results, models and costs', async () => {
    const { code, stdout } = await run(['sessions', 'show', claude, '--store', store], dir.dir);
    expect(code).toBe(0);
    expect(stdout).toContain(`session    ${claude}\nworkspace  /work/foo\n`);
    expect(stdout).toContain('messages   4 · cost $0.0084\n');
    expect(stdout).toMatch(/\[.* · user\] {2}\S+\n {2}What is README.md about\?/);
    expect(stdout).toMatch(
      /· assistant · anthropic:claude-sonnet-4-6 · \$0.0045\] {2}\S+\n {2}→ read_file \{"path":"README.md"\}/,
    );
    expect(stdout).toMatch(/· tool\] {2}\S+\n {2}← # Foo A project\./);
    expect(stdout).toMatch(/· \$0.0039\] {2}\S+\n {2}It is about Foo\./);
  });

  it('prints the session and its messages as JSON', async () => {
    const { code, stdout } = await run(
      ['sessions', 'show', claude, '--json', '--store', store],
      dir.dir,
    );
    expect(code).toBe(0);
    const shown = JSON.parse(stdout) as {
      session: { id: string };
      messages: Array<{ role: string }>;
    };
    expect(shown.session.id).toBe(claude);
    expect(shown.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });

  it('names a session that does not exist, in one line', async () => {
    const { code, stderr } = await run(
      ['sessions', 'show', 'sess_nope', '--store', store],
      dir.dir,
    );
    expect(code).toBe(1);
    expect(stderr).toMatch(/^yourtool: no session "sess_nope" in sqlite:.*sessions\.db\n$/);
  });
});

describe('yourtool sessions cost', () => {
  it('gives the exact total and the cost of each model', async () => {
    const { code, stdout } = await run(['sessions', 'cost', claude, '--store', store], dir.dir);
    expect(code).toBe(0);
    expect(stdout).toBe(
      [
        'MODEL                        CALLS  INPUT  CACHED  OUTPUT  COST',
        'anthropic:claude-sonnet-4-6  2      2200   0       120     $0.0084',
        'total $0.0084',
        '',
      ].join('\n'),
    );
    const json = await run(['sessions', 'cost', gemini, '--json', '--store', store], dir.dir);
    expect(JSON.parse(json.stdout)).toMatchObject({
      session_id: gemini,
      unpriced_messages: 0,
      models: [
        { model: 'google:gemini-2.5-flash', calls: 1, input_tokens: 300, output_tokens: 10 },
      ],
    });
  });
});
