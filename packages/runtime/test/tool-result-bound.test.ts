import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type LoopbackServer,
  loadFixtureDirectory,
  type ScriptedResponse,
  startLoopbackServer,
} from '@yourtool/conformance';
import { createMemoryLogger, type Message, validateHistory } from '@yourtool/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRuntime, defineTool } from '../src/index.js';
import { servedAs } from './served-as.js';

// A tool result too big for any model (issue 36, decision 0155): the model receives at most
// 16,000 tokens of it, with a marker saying what was left out; the store keeps it whole.

const fixturesOf = (pkg: string) =>
  loadFixtureDirectory(fileURLToPath(new URL(`../../${pkg}/test/fixtures`, import.meta.url)));

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

/** 5 MB of log lines, with accents and an emoji (a surrogate pair) now and then. */
function bigLog(): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < 5 * 1024 * 1024; i++) {
    const line = `${String(i).padStart(7, '0')} INFO worker-${i % 17} handled request ${i * 7919} in ${i % 250} ms${i % 97 === 0 ? ' — café ✔ 🚀' : ''}`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n');
}
const BIG = bigLog();

const PROVIDERS = [
  {
    name: 'Claude',
    model: 'anthropic:claude-sonnet-4-6',
    alias: 'sonnet',
    pkg: 'anthropic',
    wire: 'claude-sonnet-4-6',
  },
  { name: 'GPT-5', model: 'openai:gpt-5', alias: 'gpt5', pkg: 'openai', wire: 'gpt-5' },
  {
    name: 'Gemini',
    model: 'google:gemini-2.5-flash',
    alias: 'flash',
    pkg: 'google',
    wire: 'gemini-2.5-flash',
  },
] as const;

const MODELS = `
adapters:
  anthropic: { type: anthropic, api_key_env: TEST_ANTHROPIC_KEY, base_url_env: TEST_LLM_BASE_URL, max_retries: 0 }
  openai: { type: openai, api_key_env: TEST_OPENAI_KEY, base_url_env: TEST_LLM_BASE_URL, max_retries: 0 }
  google: { type: google, api_key_env: TEST_GEMINI_KEY, base_url_env: TEST_LLM_BASE_URL, max_retries: 0 }
models:
  anthropic:claude-sonnet-4-6: { adapter: anthropic, wire_name: claude-sonnet-4-6, aliases: [sonnet] }
  openai:gpt-5: { adapter: openai, wire_name: gpt-5, aliases: [gpt5] }
  google:gemini-2.5-flash: { adapter: google, wire_name: gemini-2.5-flash, aliases: [flash] }
`;

const env = () => ({
  TEST_ANTHROPIC_KEY: 'sk-ant-bound-test-000000',
  TEST_OPENAI_KEY: 'sk-bound-test-0000000000',
  TEST_GEMINI_KEY: 'gemini-bound-test-0000',
  TEST_LLM_BASE_URL: server.url,
});

/** `text` as it stands inside a JSON string. */
const escaped = (text: string) => JSON.stringify(text).slice(1, -1);

const MARKER =
  /\[… ([\d,]+) characters \(about ([\d,]+) tokens\) of this tool result were left out: it exceeded the 16,000-token limit for one result\]/;

describe.each(PROVIDERS)('a 5 MB tool result on $name (decision 0155)', (provider) => {
  it('is cut to 16,000 tokens with a marker in every request, stored whole, and three more turns succeed', {
    // four turns over a 5 MB result take about 3 s with the CPUs shared, and over 40 s at the
    // load several test runs put on two CPUs; a timed-out test would still send into the next one
    timeout: 120_000,
  }, async () => {
    const fixtures = fixturesOf(provider.pkg);
    const recorded = (name: string): ScriptedResponse[] =>
      servedAs(fixtures[name] ?? [], provider.wire);
    const logger = createMemoryLogger();
    let calls = 0;
    const readFile = defineTool({
      name: 'read_file',
      description: 'Read a UTF-8 text file of the workspace.',
      side_effects: 'read',
      input_schema: {
        type: 'object',
        properties: { path: { type: 'string' } },
        required: ['path'],
      },
      run: () => {
        calls++;
        return BIG;
      },
    });
    const dir = mkdtempSync(join(tmpdir(), 'runtime-bound-'));
    const runtime = await createRuntime({
      models: MODELS,
      routing: `global_default: ${provider.alias}`,
      store: `sqlite:${join(dir, 'sessions.db')}`,
      tools: [readFile],
      logger,
      env: env(),
    });
    try {
      const session = await runtime.sessions.createSession({ workspace_path: '/work/foo' });
      server.enqueue(...recorded('tool-call-stream'), ...recorded('text-stream'));
      const first = await runtime.sessions.sendAndWait(session.id, 'Read the server log.');
      expect(first.end).toBe('end_turn');
      expect(first.steps).toBe(2);
      expect(calls).toBe(1);
      for (const text of ['What failed?', 'And before that?', 'Thanks.']) {
        server.enqueue(...recorded('text-stream'));
        const next = await runtime.sessions.sendAndWait(session.id, text);
        expect(next.end, text).toBe('end_turn');
        expect(next.error, text).toBeNull();
      }
      expect(server.requests).toHaveLength(5);

      // the store keeps what the tool returned, byte for byte
      const { messages } = await runtime.store.loadMessages(session.id);
      expect(validateHistory(messages).ok).toBe(true);
      const toolRow = messages.find((m) => m.role === 'tool') as Message;
      const block = toolRow.content[0];
      if (block?.type !== 'tool_result') throw new Error('no tool result stored');
      expect(block.content).toHaveLength(1);
      const stored = block.content[0];
      if (stored?.type !== 'text') throw new Error('the stored result is not text');
      expect(Buffer.from(stored.text, 'utf8').equals(Buffer.from(BIG, 'utf8'))).toBe(true);

      // every request after the tool ran holds the head of the result and the marker, not 5 MB
      for (const request of server.requests.slice(1)) {
        const body = JSON.stringify(request.body);
        expect(body.length).toBeLessThan(200_000);
        // its start and its end; the middle left out
        expect(body).toContain(escaped(BIG.slice(0, 200)));
        expect(body).toContain(escaped(BIG.slice(-200)));
        expect(body).not.toContain(escaped(BIG.slice(BIG.length / 2, BIG.length / 2 + 200)));
        expect(body).toMatch(MARKER);
      }
      const [, leftOut, aboutTokens] = MARKER.exec(JSON.stringify(server.requests[1]?.body)) ?? [];
      const number = (text: string | undefined) => Number((text ?? '').replaceAll(',', ''));

      // one WARN for the cut, naming the tool, the tool use and the sizes
      const warnings = logger.warnings().filter((w) => w.obj.event === 'tool_result_truncated');
      expect(warnings).toHaveLength(1);
      const warned = warnings[0]?.obj ?? {};
      expect(warned).toMatchObject({
        tool_name: 'read_file',
        tool_use_id: block.tool_use_id,
        model: provider.model,
        session_id: session.id,
        reason: 'result_limit',
        limit_tokens: 16_000,
        original_characters: BIG.length,
        left_out_characters: number(leftOut),
        left_out_tokens: number(aboutTokens),
        left_out_images: 0,
      });
      expect(warned.kept_tokens).toBeLessThanOrEqual(16_000);
      expect(warned.kept_tokens).toBeGreaterThan(14_000);
      expect(warned.original_tokens).toBeGreaterThan(1_000_000);
      expect(warnings[0]?.msg).toMatch(/read_file/);
    } finally {
      await runtime.close();
    }
  });
});
