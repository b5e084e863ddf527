import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { objectReply, type ScriptedProvider, usage } from '@yourtool/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { run, startScriptedProvider } from './helpers.js';

// Issue 45: `yourtool chat --schema` asks every turn for an object and shows it indented;
// `replay` shows a stored object, and with --schema asks the other model for one.

const CITY = {
  type: 'object',
  properties: { name: { type: 'string' }, population: { type: 'integer' } },
  required: ['name', 'population'],
  additionalProperties: false,
};

let provider: ScriptedProvider;
let dir: string;
beforeAll(async () => {
  provider = await startScriptedProvider();
});
afterAll(() => provider.close());
afterEach(() => {
  provider.clear();
  rmSync(dir, { recursive: true, force: true });
});

/** A workspace with Claude (native output), a model with tools only, and the schema file. */
function workspace(): string {
  dir = mkdtempSync(join(tmpdir(), 'yourtool-cli-objects-'));
  const models = {
    'anthropic:claude-sonnet-4-6': { aliases: ['sonnet'] },
    'local:qwen3-8b': {
      aliases: ['qwen'],
      capabilities: { supports_structured_output: false, supports_tools: true },
    },
  };
  writeFileSync(join(dir, 'models.yaml'), provider.modelsYaml({ models }));
  writeFileSync(join(dir, 'city.json'), JSON.stringify(CITY));
  return dir;
}

describe('objects in the CLI', () => {
  it('chat --schema shows each object indented; replay shows it and asks another model for one', async () => {
    const cwd = workspace();
    provider.reply(
      objectReply(
        { name: 'Paris', population: 2102650 },
        { chunks: 5, extra: [usage({ input_tokens: 50, output_tokens: 20 })] },
      ),
    );
    const chat = await run(
      ['chat', '--create', '--store', 'sqlite:chat.db', '--schema', 'city.json'],
      cwd,
      { input: 'Describe Paris.\n' },
    );
    expect(chat.stderr).not.toMatch(/error/);
    expect(chat.code).toBe(0);
    expect(chat.stdout).toContain('{\n  "name": "Paris",\n  "population": 2102650\n}\n');
    // the raw JSON deltas are not echoed: the object is shown once, whole
    expect(chat.stdout.match(/"Paris"/g)).toHaveLength(1);
    const session = /session (\w+) saved/.exec(chat.stderr)?.[1] ?? '';

    provider.reply(objectReply({ name: 'Paris', population: 2100000 }));
    const replay = await run(
      ['replay', session, '--model', 'qwen', '--schema', 'city.json', '--store', 'sqlite:chat.db'],
      cwd,
    );
    expect(replay.stderr).toBe('');
    expect(replay.code).toBe(0);
    expect(replay.stdout).toContain('original anthropic:claude-sonnet-4-6');
    expect(replay.stdout).toContain(
      '  object:\n    {\n      "name": "Paris",\n      "population": 2102650\n    }',
    );
    expect(replay.stdout).toContain('      "population": 2100000');
    // the model without native output was asked through the forced tool
    expect(provider.requests.at(-1)?.tools).toEqual(['structured_output']);
  });

  it('chat --schema on a model without native output: the forced tool stays out of sight', async () => {
    const cwd = workspace();
    provider.reply(objectReply({ name: 'Lyon', population: 522250 }, { chunks: 3 }));
    const chat = await run(
      ['chat', '--create', '--store', 'sqlite:chat.db', '--model', 'qwen', '--schema', 'city.json'],
      cwd,
      { input: 'Describe Lyon.\n' },
    );
    expect(chat.code).toBe(0);
    expect(chat.stdout).toContain('{\n  "name": "Lyon",\n  "population": 522250\n}\n');
    expect(chat.stdout).not.toContain('structured_output');
    expect(provider.requests.at(-1)?.tools).toContain('structured_output');
  });

  it('chat says why a reply is not a valid object', async () => {
    const cwd = workspace();
    provider.reply(objectReply({ name: 'Paris', population: 'many' }));
    const chat = await run(
      ['chat', '--create', '--store', 'sqlite:chat.db', '--schema', 'city.json'],
      cwd,
      { input: 'Describe Paris.\n' },
    );
    expect(chat.code).not.toBe(0);
    expect(chat.stderr).toMatch(/\$\.population: must be integer \(type\)/);
  });

  it('refuses a --schema file that is not a JSON object, naming it', async () => {
    const cwd = workspace();
    writeFileSync(join(cwd, 'bad.json'), '[1, 2]');
    const chat = await run(
      ['chat', '--create', '--store', 'sqlite:chat.db', '--schema', 'bad.json'],
      cwd,
    );
    expect(chat.code).not.toBe(0);
    expect(chat.stderr).toContain('--schema bad.json: a JSON Schema must be a JSON object');
  });
});
