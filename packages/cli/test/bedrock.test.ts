import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { validateHistory } from '@yourtool/core';
import { createRuntime, KNOWN_ADAPTER_PACKAGES } from '@yourtool/runtime';
import { type ScriptedProvider, text, thinking, usage } from '@yourtool/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { run, startScriptedProvider, workspace } from './helpers.js';

// The runtime's `type: bedrock` is tested here against @yourtool/testing's scripted provider:
// the runtime's own tests cannot use @yourtool/testing (its tests use the runtime, a cycle pnpm
// and turbo refuse), and the CLI depends on the runtime and @yourtool/bedrock.

/** A Bedrock API key (sent as a bearer token); it must never reach a row, a log or stdout. */
const KEY = 'ABSKbedrock-cli-test-key-0123456789';
const SONNET = 'anthropic.claude-sonnet-4-5-20250929-v1:0';

/** The runtime README's Bedrock registry, pointed at `url` with a key and no retries. */
function readmeBedrockYaml(url: string): string {
  const readme = readFileSync(
    fileURLToPath(new URL('../../runtime/README.md', import.meta.url)),
    'utf8',
  );
  const section = readme.slice(readme.indexOf('\n## Amazon Bedrock\n'));
  const yaml = /```yaml\n([\s\S]*?)```/.exec(section)?.[1];
  if (!yaml) throw new Error('runtime README: no yaml block under "## Amazon Bedrock"');
  const entry = '    type: bedrock\n';
  if (!yaml.includes(entry)) throw new Error(`runtime README: no "${entry.trim()}" line`);
  const options = /options: \{ region: ([\w-]+) \}/;
  if (!options.test(yaml)) throw new Error('runtime README: no "options: { region: ... }"');
  // the scripted provider speaks HTTP/1.1; the SDK's default handler is HTTP/2
  return yaml
    .replace(entry, `${entry}    base_url: "${url}"\n    api_key: ${KEY}\n    max_retries: 0\n`)
    .replace(options, 'options: { region: $1, http_version: "1.1" }');
}

let provider: ScriptedProvider;
beforeAll(async () => {
  provider = await startScriptedProvider();
});
afterAll(() => provider.close());
beforeEach(() => provider.clear());

describe('createRuntime with type: bedrock', () => {
  it('builds BedrockAdapter from the README entry and runs a turn priced at the global rate', async () => {
    expect(KNOWN_ADAPTER_PACKAGES.bedrock).toEqual({
      package: '@yourtool/bedrock',
      export: 'BedrockAdapter',
    });
    const runtime = await createRuntime({ models: readmeBedrockYaml(provider.url), logger: false });
    try {
      provider.reply(
        text('Hello from Bedrock.'),
        usage({ input_tokens: 1000, output_tokens: 100 }),
      );
      const session = await runtime.sessions.createSession({ workspace_path: '/work/foo' });
      const result = await runtime.sessions.sendAndWait(session.id, 'Say hello.');
      expect(result.end).toBe('end_turn');
      const [request] = provider.requests;
      expect(request?.format).toBe('bedrock');
      // ConverseStream, the model id URL-encoded in the path as the SDK sends it
      expect(request?.path).toBe(
        `/model/${encodeURIComponent(`global.${SONNET}`)}/converse-stream`,
      );
      expect(request?.lastUserText).toBe('Say hello.');
      const { messages } = await runtime.store.loadMessages(session.id);
      expect(validateHistory(messages).ok).toBe(true);
      const reply = messages.at(-1);
      expect(reply?.metadata.model).toBe(`bedrock:global.${SONNET}`);
      expect(reply?.content).toEqual([{ type: 'text', text: 'Hello from Bedrock.' }]);
      // 1000 × 3.00 + 100 × 15.00 µ$: the global profile's price (decision 0169)
      expect(reply?.metadata.usage?.cost_usd).toBe('0.0045');
      expect(JSON.stringify(messages)).not.toContain(KEY);
    } finally {
      await runtime.close();
    }
  });
});

describe('a session swapping Claude on Anthropic, Claude on Bedrock and GPT-5', () => {
  it('sends each signed reasoning block back only to the model that made it', async () => {
    const bedrockClaude = `bedrock:global.${SONNET}`;
    const runtime = await createRuntime({
      models: provider.modelsYaml({
        models: {
          'anthropic:claude-sonnet-4-6': { aliases: ['claude'] },
          [bedrockClaude]: { aliases: ['bedrock-claude'] },
          'openai:gpt-5': { aliases: ['gpt5'] },
        },
      }),
      routing: 'global_default: claude',
      logger: false,
    });
    try {
      const said = (model: string, signature: string) => [
        thinking(`Thinking on ${model}.`, { signature }),
        text(`Answer from ${model}.`),
      ];
      provider
        .reply(...said('anthropic', 'sig-from-anthropic'))
        .reply(...said('bedrock', 'sig-from-bedrock'))
        .reply(text('Answer from GPT-5.'))
        .reply(text('Back on Anthropic.'))
        .reply(text('Back on Bedrock.'));
      const session = await runtime.sessions.createSession({ workspace_path: '/work/foo' });
      const turns: Array<[string | null, string]> = [
        [null, 'One.'],
        ['bedrock-claude', 'Two.'],
        ['gpt5', 'Three.'],
        ['claude', 'Four.'],
        ['bedrock-claude', 'Five.'],
      ];
      for (const [model, question] of turns) {
        if (model) await runtime.sessions.swapModel(session.id, model);
        expect((await runtime.sessions.sendAndWait(session.id, question)).end).toBe('end_turn');
      }
      const requests = provider.requests;
      expect(requests.map((r) => r.format)).toEqual([
        'anthropic',
        'bedrock',
        'openai-chat',
        'anthropic',
        'bedrock',
      ]);
      const body = (i: number) => JSON.stringify(requests[i]?.body);
      // Bedrock's first turn: Anthropic's signature stays behind (another model made it)
      expect(body(1)).not.toContain('sig-from-anthropic');
      // GPT-5 gets neither
      expect(body(2)).not.toMatch(/sig-from-(anthropic|bedrock)/);
      // back on Anthropic: never Bedrock's signature
      expect(body(3)).not.toContain('sig-from-bedrock');
      // back on Bedrock: its own reasoning goes back signed, Anthropic's does not
      expect(body(4)).toContain('sig-from-bedrock');
      expect(body(4)).not.toContain('sig-from-anthropic');
      const { messages } = await runtime.store.loadMessages(session.id);
      expect(validateHistory(messages).ok).toBe(true);
    } finally {
      await runtime.close();
    }
  });
});

describe('yourtool models with Bedrock models', () => {
  let dir: { dir: string; dispose(): void };
  beforeAll(() => {
    dir = workspace();
    writeFileSync(
      join(dir.dir, 'models.yaml'),
      `adapters:
  bedrock:
    type: bedrock
    base_url: "${provider.url}"
    api_key: ${KEY}
    max_retries: 0
    options:
      region: us-east-1
      http_version: "1.1"
      families: { "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3": claude }
models:
  bedrock:global.${SONNET}: { adapter: bedrock, wire_name: global.${SONNET}, aliases: [sonnet-global] }
  bedrock:us.${SONNET}: { adapter: bedrock, wire_name: us.${SONNET}, aliases: [sonnet-us] }
  bedrock:arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3:
    { adapter: bedrock, wire_name: "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3" }
  bedrock:us.meta.llama3-3-70b-instruct-v1:0: { adapter: bedrock, wire_name: us.meta.llama3-3-70b-instruct-v1:0, aliases: [llama] }
`,
    );
  });
  afterAll(() => dir.dispose());

  it('lists each with its capabilities and the price its id has in the table', async () => {
    const { code, stdout, stderr } = await run(['models'], dir.dir);
    expect(stderr).not.toContain(KEY);
    expect(code).toBe(0);
    const lines = stdout.split('\n');
    expect(lines[0]).toMatch(/^MODEL\s+ALIASES\s+AVAILABILITY\s+CONTEXT\s+MAX OUT\s+IN \$\/MTOK/);
    const claude = /\s+available\s+\d+\s+\d+\s+/;
    expect(lines[1]).toMatch(
      new RegExp(
        `^bedrock:global\\.${esc(SONNET)}\\s+sonnet-global${claude.source}3\\.00\\s+15\\.00\\s+tools,images,thinking`,
      ),
    );
    expect(lines[2]).toMatch(
      new RegExp(
        `^bedrock:us\\.${esc(SONNET)}\\s+sonnet-us${claude.source}3\\.30\\s+16\\.50\\s+tools,images,thinking`,
      ),
    );
    // an application inference profile names no model: its family is configured, its price is not
    expect(lines[3]).toMatch(
      /^bedrock:arn:aws:bedrock:\S+\s+-\s+available\s+\d+\s+\d+\s+-\s+-\s+tools/,
    );
    expect(lines[4]).toMatch(
      /^bedrock:us\.meta\.llama3-3-70b-instruct-v1:0\s+llama\s+available\s+\d+\s+\d+\s+-\s+-\s+/,
    );
    expect(stdout).toMatch(
      /\nbedrock:arn:aws:\S+: no price in table \S+ \(costs show as unpriced\)\n/,
    );
    expect(stdout).toMatch(/\nbedrock:us\.meta\.llama3-3-70b-instruct-v1:0: no price in table /);
    expect(stdout).not.toContain(KEY);
    // listing the models calls no model
    expect(provider.requests).toEqual([]);
  });

  it('prints the prices and price keys as JSON', async () => {
    const { code, stdout } = await run(['models', '--json'], dir.dir);
    expect(code).toBe(0);
    const models = JSON.parse(stdout) as Array<{
      id: string;
      price: { input_per_mtok_usd: string; price_key: string } | null;
      capabilities: { supports_tools: boolean } | null;
    }>;
    expect(models.map((m) => [m.id, m.price?.input_per_mtok_usd ?? null])).toEqual([
      [`bedrock:global.${SONNET}`, '3.00'],
      [`bedrock:us.${SONNET}`, '3.30'],
      ['bedrock:arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3', null],
      ['bedrock:us.meta.llama3-3-70b-instruct-v1:0', null],
    ]);
    expect(models[1]?.price?.price_key).toBe(`bedrock:us.${SONNET}`);
    expect(models.every((m) => m.capabilities !== null)).toBe(true);
  });
});

/** `text` with the regular expression characters escaped. */
function esc(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
