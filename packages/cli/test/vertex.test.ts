import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { validateHistory } from '@yourtool/core';
import { createRuntime, KNOWN_ADAPTER_PACKAGES } from '@yourtool/runtime';
import { type ScriptedProvider, text, thinking, usage } from '@yourtool/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { run, startScriptedProvider, workspace } from './helpers.js';

// The runtime's Vertex AI configurations (`type: vertex-anthropic`, `type: google` with
// `vertexai: true`) are tested here against @yourtool/testing's scripted provider, as Bedrock's
// are: the runtime's and the adapters' own tests cannot use @yourtool/testing (a build cycle).

/** An OAuth access token (Claude) and express-mode key (Gemini); never in a row, log or stdout. */
const TOKEN = 'ya29.vertex-cli-test-access-token-0123456789';
const SONNET = 'claude-sonnet-4-5@20250929';

/** The runtime README's Vertex registry, pointed at `url` with a token and no retries. */
function readmeVertexYaml(url: string): string {
  const readme = readFileSync(
    fileURLToPath(new URL('../../runtime/README.md', import.meta.url)),
    'utf8',
  );
  const section = readme.slice(readme.indexOf('\n## Google Vertex AI\n'));
  const yaml = /```yaml\n([\s\S]*?)```/.exec(section)?.[1];
  if (!yaml) throw new Error('runtime README: no yaml block under "## Google Vertex AI"');
  const claude = '    type: vertex-anthropic\n';
  const gemini = '    type: google\n';
  for (const line of [claude, gemini]) {
    if (!yaml.includes(line)) throw new Error(`runtime README: no "${line.trim()}" line`);
  }
  const extra = `    api_key: ${TOKEN}\n    max_retries: 0\n`;
  // Claude's base URL holds the API version, as the regional host's does; Gemini's SDK adds its own
  return yaml
    .replace(claude, `${claude}    base_url: "${url}/v1"\n${extra}`)
    .replace(gemini, `${gemini}    base_url: "${url}"\n${extra}`);
}

let provider: ScriptedProvider;
beforeAll(async () => {
  provider = await startScriptedProvider({ secrets: [TOKEN] });
});
afterAll(() => provider.close());
beforeEach(() => provider.clear());

describe('createRuntime with the README Vertex AI configurations', () => {
  it('runs Claude on Vertex and Gemini on Vertex, each priced, at their Vertex paths', async () => {
    expect(KNOWN_ADAPTER_PACKAGES['vertex-anthropic']).toEqual({
      package: '@yourtool/anthropic',
      export: 'VertexAnthropicAdapter',
    });
    const runtime = await createRuntime({
      models: readmeVertexYaml(provider.url),
      routing: 'global_default: vertex-sonnet',
      logger: false,
    });
    try {
      provider
        .reply(
          text('Hello from Claude on Vertex.'),
          usage({ input_tokens: 1000, output_tokens: 100 }),
        )
        .reply(
          text('Hello from Gemini on Vertex.'),
          usage({ input_tokens: 1000, output_tokens: 100 }),
        );
      const session = await runtime.sessions.createSession({ workspace_path: '/work/foo' });
      expect((await runtime.sessions.sendAndWait(session.id, 'Say hello.')).end).toBe('end_turn');
      await runtime.sessions.swapModel(session.id, 'vertex-gemini');
      expect((await runtime.sessions.sendAndWait(session.id, 'Again.')).end).toBe('end_turn');
      const [claude, gemini] = provider.requests;
      expect(claude?.path).toBe(
        `/v1/projects/my-project/locations/global/publishers/anthropic/models/${SONNET}:streamRawPredict`,
      );
      expect(claude?.format).toBe('anthropic');
      expect(claude?.model).toBe(SONNET);
      expect(gemini?.path).toBe(
        '/v1beta1/projects/my-project/locations/global/publishers/google/models/gemini-2.5-pro:streamGenerateContent?alt=sse',
      );
      const { messages } = await runtime.store.loadMessages(session.id);
      expect(validateHistory(messages).ok).toBe(true);
      const replies = messages.filter((m) => m.role === 'assistant');
      expect(replies.map((m) => m.metadata.model)).toEqual([
        `vertex-anthropic:${SONNET}`,
        'google:gemini-2.5-pro',
      ]);
      // 1000 × 3.00 + 100 × 15.00 µ$: Anthropic's list price, the global endpoint's (decision 0179)
      expect(replies[0]?.metadata.usage?.cost_usd).toBe('0.0045');
      // 1000 × 1.25 + 100 × 10.00 µ$: the Gemini API's price for the same model
      expect(replies[1]?.metadata.usage?.cost_usd).toBe('0.00225');
      expect(JSON.stringify(messages)).not.toContain(TOKEN);
    } finally {
      await runtime.close();
    }
  });
});

describe('a session swapping Claude on Anthropic, Claude on Vertex and Gemini on Vertex', () => {
  it('sends each signed reasoning block back only to the model that made it', async () => {
    const runtime = await createRuntime({
      models: provider.modelsYaml({
        models: {
          'anthropic:claude-sonnet-4-5': { aliases: ['claude'] },
          [`vertex-anthropic:${SONNET}`]: { aliases: ['vertex-claude'] },
          'google:gemini-2.5-pro': { aliases: ['vertex-gemini'], options: { vertexai: true } },
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
        .reply(...said('vertex-claude', 'sig-from-vertex-claude'))
        .reply(...said('vertex-gemini', 'sig-from-vertex-gemini'))
        .reply(text('Back on Anthropic.'))
        .reply(text('Back on Claude on Vertex.'))
        .reply(text('Back on Gemini on Vertex.'));
      const session = await runtime.sessions.createSession({ workspace_path: '/work/foo' });
      const turns: Array<[string | null, string]> = [
        [null, 'One.'],
        ['vertex-claude', 'Two.'],
        ['vertex-gemini', 'Three.'],
        ['claude', 'Four.'],
        ['vertex-claude', 'Five.'],
        ['vertex-gemini', 'Six.'],
      ];
      for (const [model, question] of turns) {
        if (model) await runtime.sessions.swapModel(session.id, model);
        expect((await runtime.sessions.sendAndWait(session.id, question)).end).toBe('end_turn');
      }
      const requests = provider.requests;
      expect(requests.map((r) => [r.format, r.path.includes(':streamRawPredict')])).toEqual([
        ['anthropic', false],
        ['anthropic', true],
        ['gemini', false],
        ['anthropic', false],
        ['anthropic', true],
        ['gemini', false],
      ]);
      const body = (i: number) => JSON.stringify(requests[i]?.body);
      const ALL = /sig-from-(anthropic|vertex-claude|vertex-gemini)/;
      // first turn on each: nobody else's signature
      expect(body(1)).not.toMatch(ALL);
      expect(body(2)).not.toMatch(ALL);
      // back on Anthropic: its own, never Vertex's
      expect(body(3)).toContain('sig-from-anthropic');
      expect(body(3)).not.toMatch(/sig-from-vertex/);
      // back on Claude on Vertex: its own, not the Anthropic API's (same model, other platform)
      expect(body(4)).toContain('sig-from-vertex-claude');
      expect(body(4)).not.toMatch(/sig-from-(anthropic|vertex-gemini)/);
      // back on Gemini on Vertex: its own only
      expect(body(5)).toContain('sig-from-vertex-gemini');
      expect(body(5)).not.toMatch(/sig-from-(anthropic|vertex-claude)/);
      const { messages } = await runtime.store.loadMessages(session.id);
      expect(validateHistory(messages).ok).toBe(true);
    } finally {
      await runtime.close();
    }
  });
});

describe('yourtool models with Vertex AI models', () => {
  let dir: { dir: string; dispose(): void };
  beforeAll(() => {
    dir = workspace();
    writeFileSync(join(dir.dir, 'models.yaml'), readmeVertexYaml(provider.url));
  });
  afterAll(() => dir.dispose());

  it('lists Claude and Gemini on Vertex with capabilities and prices', async () => {
    const { code, stdout, stderr } = await run(['models'], dir.dir);
    expect(stderr).not.toContain(TOKEN);
    expect(code).toBe(0);
    const lines = stdout.split('\n');
    expect(lines[0]).toMatch(/^MODEL\s+ALIASES\s+AVAILABILITY\s+CONTEXT\s+MAX OUT\s+IN \$\/MTOK/);
    expect(lines[1]).toMatch(
      /^vertex-anthropic:claude-sonnet-4-5@20250929\s+vertex-sonnet\s+available\s+\d+\s+\d+\s+3\.00\s+15\.00\s+tools,images,thinking/,
    );
    expect(lines[2]).toMatch(
      /^google:gemini-2\.5-pro\s+vertex-gemini\s+available\s+\d+\s+\d+\s+1\.25\s+10\.00\s+tools/,
    );
    expect(stdout).not.toContain(TOKEN);
    // listing the models calls no model
    expect(provider.requests).toEqual([]);
  });

  it('prints the prices and price keys as JSON', async () => {
    const { code, stdout } = await run(['models', '--json'], dir.dir);
    expect(code).toBe(0);
    const models = JSON.parse(stdout) as Array<{
      id: string;
      price: { input_per_mtok_usd: string; price_key: string } | null;
    }>;
    expect(models.map((m) => [m.id, m.price?.price_key, m.price?.input_per_mtok_usd])).toEqual([
      [`vertex-anthropic:${SONNET}`, `vertex-anthropic:${SONNET}`, '3.00'],
      ['google:gemini-2.5-pro', 'google:gemini-2.5-pro', '1.25'],
    ]);
  });
});
