import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ScriptedProvider } from '@yourtool/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, startScriptedProvider, workspace } from './helpers.js';

const SECRET = 'sk-ant-models-test-secret-0123456789';

let provider: ScriptedProvider;
let dir: { dir: string; dispose(): void };
beforeAll(async () => {
  provider = await startScriptedProvider();
  dir = workspace();
  writeFileSync(
    join(dir.dir, 'models.yaml'),
    `adapters:
  anthropic: { type: anthropic, base_url: "${provider.url}", api_key: ${SECRET}, max_retries: 0 }
  vault: { type: anthropic, api_key_env: VAULT_ANTHROPIC_KEY }
  ollama: { type: ollama, base_url: "${provider.url}" }
  google: { type: google, base_url: "${provider.url}", api_key_env: GEMINI_KEY }
models:
  anthropic:claude-sonnet-4-6: { adapter: anthropic, wire_name: claude-sonnet-4-6, aliases: [sonnet] }
  anthropic:claude-haiku-4-5: { adapter: vault, wire_name: claude-haiku-4-5, aliases: [haiku] }
  ollama:qwen3:8b: { adapter: ollama, wire_name: "qwen3:8b", aliases: [qwen] }
  google:gemini-9-ultra: { adapter: google, wire_name: gemini-9-ultra }
`,
  );
});
afterAll(async () => {
  await provider.close();
  dir.dispose();
});

describe('yourtool models', () => {
  it('lists each model with availability, window, prices and capabilities', async () => {
    const env = { GEMINI_KEY: 'AIza-gemini-test-key-0123456789' };
    const { code, stdout, stderr } = await run(['models'], dir.dir, { env });
    expect(code).toBe(0);
    const lines = stdout.split('\n');
    expect(lines[0]).toMatch(
      /^MODEL\s+ALIASES\s+AVAILABILITY\s+CONTEXT\s+MAX OUT\s+IN \$\/MTOK\s+OUT \$\/MTOK\s+CAPABILITIES$/,
    );
    expect(lines[1]).toMatch(
      /^anthropic:claude-sonnet-4-6\s+sonnet\s+available\s+\d+\s+\d+\s+3\.00\s+15\.00\s+tools,images,thinking,\S*caching/,
    );
    expect(lines[2]).toMatch(
      /^anthropic:claude-haiku-4-5\s+haiku\s+not_configured\s+\?\s+\?\s+1\.00\s+5\.00\s+\?$/,
    );
    // Ollama's capabilities are detected from its /api/show (the scripted provider answers it)
    expect(lines[3]).toMatch(
      /^ollama:qwen3:8b\s+qwen\s+available\s+32768\s+\d+\s+0\s+0\s+tools,images,thinking/,
    );
    expect(lines[4]).toMatch(/^google:gemini-9-ultra\s+-\s+available\s+\d+\s+\d+\s+-\s+-\s+/);
    expect(stdout).toContain(
      '\nanthropic:claude-haiku-4-5: the environment variable VAULT_ANTHROPIC_KEY is not set\n',
    );
    expect(stdout).toMatch(
      /\ngoogle:gemini-9-ultra: no price in table \S+ \(costs show as unpriced\)\n/,
    );
    expect(stdout).toMatch(/\nprices: table \S+, USD per million tokens\n$/);
    for (const secret of [SECRET, env.GEMINI_KEY]) expect(stdout + stderr).not.toContain(secret);
  });

  it('prints JSON', async () => {
    const { code, stdout } = await run(['models', '--json'], dir.dir, { env: { GEMINI_KEY: 'k' } });
    expect(code).toBe(0);
    const models = JSON.parse(stdout) as Array<Record<string, unknown>>;
    expect(models.map((m) => [m.id, m.availability])).toEqual([
      ['anthropic:claude-sonnet-4-6', 'available'],
      ['anthropic:claude-haiku-4-5', 'not_configured'],
      ['ollama:qwen3:8b', 'available'],
      ['google:gemini-9-ultra', 'available'],
    ]);
    expect(models[0]).toMatchObject({
      price: { input_per_mtok_usd: '3.00', output_per_mtok_usd: '15.00' },
      capabilities: { supports_tools: true },
    });
  });

  it('names a models.yaml problem without quoting the key', async () => {
    const bad = workspace();
    try {
      writeFileSync(
        join(bad.dir, 'broken.yaml'),
        `adapters:\n  a: { type: anthropic, api_key_env: ${SECRET} }\nmodels: {}\n`,
      );
      const { code, stdout, stderr } = await run(['models', '--models', 'broken.yaml'], bad.dir);
      expect(code).toBe(1);
      expect(stdout).toBe('');
      expect(stderr).toMatch(/^yourtool: .*broken\.yaml.*api_key_env/);
      expect(stderr).not.toContain(SECRET);
      expect(stderr).not.toMatch(/\n\s+at /); // no stack trace
      const missing = await run(['models'], bad.dir);
      expect(missing.stderr).toBe(
        `yourtool: no models.yaml at ${join(bad.dir, 'models.yaml')}: pass --models <file>\n`,
      );
    } finally {
      bad.dispose();
    }
  });
});
