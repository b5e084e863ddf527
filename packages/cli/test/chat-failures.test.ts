import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ScriptedProvider, text, usage } from '@yourtool/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { run, startScriptedProvider, workspace } from './helpers.js';

/** Where nothing listens: a provider that is down. */
const DOWN = 'http://127.0.0.1:1';

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

/** A workspace whose models.yaml holds `models` (lines under `models:`) on these adapters. */
function workspaceWith(adapters: string, models: string): string {
  dir = workspace();
  writeFileSync(join(dir.dir, 'models.yaml'), `adapters:\n${adapters}\nmodels:\n${models}\n`);
  return dir.dir;
}

const LIVE_CLAUDE = () =>
  `  anthropic: { type: anthropic, base_url: "${provider.url}", api_key: sk-ant-live-test-key-0123456789, max_retries: 0 }`;

/** stderr lines that are JSON log lines rather than text for people. */
const jsonLines = (stderr: string) => stderr.split('\n').filter((line) => line.startsWith('{'));

describe('yourtool chat: failed turns, warnings', () => {
  it('exits 1 when a turn failed (its provider down), after going on with the next', async () => {
    const cwd = workspaceWith(
      [
        `  down: { type: anthropic, base_url: "${DOWN}", api_key: sk-ant-down-test-key-0123456789, max_retries: 0 }`,
        LIVE_CLAUDE(),
      ].join('\n'),
      [
        '  anthropic:claude-sonnet-4-6: { adapter: down, wire_name: claude-sonnet-4-6, aliases: [sonnet] }',
        '  anthropic:claude-haiku-4-5: { adapter: anthropic, wire_name: claude-haiku-4-5, aliases: [haiku] }',
      ].join('\n'),
    );
    provider.reply(text('Hi from Haiku.'), usage({ input_tokens: 10, output_tokens: 5 }));
    const { code, stdout, stderr } = await run(
      ['chat', '--create', '--no-tools', '--store', 'sqlite:chat.db'],
      cwd,
      { input: 'Hello\n@haiku Hello\n' },
    );
    expect(stdout).toContain('Hi from Haiku.\n');
    expect(stderr).toMatch(/^error: .*\n/m);
    expect(stderr).toMatch(/\nyourtool: 1 of 2 turns failed\n$/);
    expect(code).toBe(1);
  });

  it('exits 0 when every turn went through', async () => {
    const cwd = workspaceWith(
      LIVE_CLAUDE(),
      '  anthropic:claude-sonnet-4-6: { adapter: anthropic, wire_name: claude-sonnet-4-6 }',
    );
    provider.reply(text('Fine.'), usage({ input_tokens: 10, output_tokens: 5 }));
    const result = await run(['chat', '--create', '--store', 'sqlite:chat.db'], cwd, {
      input: 'Hello\n',
    });
    expect(result.code).toBe(0);
    expect(result.stderr).not.toMatch(/failed/);
  });

  it('writes warnings as one readable line each, not JSON', async () => {
    const cwd = workspaceWith(
      LIVE_CLAUDE(),
      '  anthropic:claude-imaginary-9: { adapter: anthropic, wire_name: claude-imaginary-9 }',
    );
    provider.reply(text('Priceless.'), usage({ input_tokens: 10, output_tokens: 5 }));
    const { code, stderr } = await run(['chat', '--create', '--store', 'sqlite:chat.db'], cwd, {
      input: 'Hello\n',
    });
    expect(code).toBe(0);
    expect(jsonLines(stderr)).toEqual([]);
    expect(stderr).toMatch(
      /^warning: no price for anthropic:claude-imaginary-9 in pricing [\d-]+: [^\n]+ \(reason: \w+\)$/m,
    );
  });

  it('says nothing of an Ollama model that is down and never used', async () => {
    const cwd = workspaceWith(
      [LIVE_CLAUDE(), `  ollama: { type: ollama, base_url: "${DOWN}", max_retries: 0 }`].join('\n'),
      [
        '  anthropic:claude-sonnet-4-6: { adapter: anthropic, wire_name: claude-sonnet-4-6 }',
        '  ollama:llama3.2: { adapter: ollama, wire_name: llama3.2, aliases: [llama] }',
      ].join('\n'),
    );
    provider
      .reply(text('One.'), usage({ input_tokens: 10, output_tokens: 5 }))
      .reply(text('Two.'), usage({ input_tokens: 10, output_tokens: 5 }));
    const { code, stdout, stderr } = await run(
      ['chat', '--create', '--store', 'sqlite:chat.db'],
      cwd,
      { input: 'Hello\nAgain\n' },
    );
    expect(code).toBe(0);
    expect(stdout).toContain('Two.\n');
    expect(stderr).not.toMatch(/llama|ollama|capabilit/i);
  });

  it('detects the capabilities of the Ollama model --model names, before any turn', async () => {
    const cwd = workspaceWith(
      [
        LIVE_CLAUDE(),
        `  ollama: { type: ollama, base_url: "${provider.url}", max_retries: 0 }`,
      ].join('\n'),
      [
        '  anthropic:claude-sonnet-4-6: { adapter: anthropic, wire_name: claude-sonnet-4-6 }',
        '  ollama:qwen3:8b: { adapter: ollama, wire_name: "qwen3:8b", aliases: [qwen] }',
      ].join('\n'),
    );
    provider.reply(text('Hi from Qwen.'), usage({ input_tokens: 10, output_tokens: 5 }));
    const { code, stdout, stderr } = await run(
      ['chat', '--create', '--model', 'qwen', '--store', 'sqlite:chat.db'],
      cwd,
      { input: 'Hello\n' },
    );
    expect(stderr).toMatch(/^session sess_\w+ · model ollama:qwen3:8b · /);
    expect(stdout).toContain('Hi from Qwen.\n[ollama:qwen3:8b · turn ');
    expect(code).toBe(0);
  });

  it('names the Ollama model that is down once routing or /model asks for it', async () => {
    const cwd = workspaceWith(
      [LIVE_CLAUDE(), `  ollama: { type: ollama, base_url: "${DOWN}", max_retries: 0 }`].join('\n'),
      [
        '  anthropic:claude-sonnet-4-6: { adapter: anthropic, wire_name: claude-sonnet-4-6 }',
        '  ollama:llama3.2: { adapter: ollama, wire_name: llama3.2, aliases: [llama] }',
      ].join('\n'),
    );
    writeFileSync(
      join(cwd, 'routing.yaml'),
      'global_default: anthropic:claude-sonnet-4-6\nrules:\n  - { name: local, when: { message_matches: local }, use: llama }\n',
    );
    provider
      .reply(text('From Claude.'), usage({ input_tokens: 10, output_tokens: 5 }))
      .reply(text('Still Claude.'), usage({ input_tokens: 10, output_tokens: 5 }));
    const { stdout, stderr } = await run(['chat', '--create', '--store', 'sqlite:chat.db'], cwd, {
      input: 'Hello\nKeep this local\n/model llama\n',
    });
    expect(stdout).toContain('Still Claude.\n');
    expect(jsonLines(stderr)).toEqual([]);
    const mentions = stderr.split('\n').filter((line) => /llama/.test(line));
    expect(mentions).toEqual([
      'warning: routing skipped ollama:llama3.2: its capabilities could not be detected (ollama: fetch failed)',
      expect.stringMatching(
        /^error: Cannot swap to ollama:llama3\.2: its capabilities could not be detected: ollama: fetch failed/,
      ),
    ]);
  });
});
