import { fileURLToPath } from 'node:url';
import { AnthropicAdapter, VertexAnthropicAdapter } from '@yourtool/anthropic';
import {
  type LoopbackServer,
  loadFixtureDirectory,
  type ScriptedResponse,
  startLoopbackServer,
} from '@yourtool/conformance';
import {
  type CanonicalResponse,
  createMessage,
  type Message,
  newRequestId,
  type ProviderAdapter,
  ToolIdMap,
} from '@yourtool/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { GoogleAdapter } from '../src/index.js';

/**
 * Issue 43: one session moves between Claude on the Anthropic API, Claude on Vertex AI and
 * Gemini on Vertex AI and back, each through its real SDK; every signed thinking block or
 * thought signature goes back only to the model (and platform) that produced it.
 */

const SESSION = 'sess_vertex_swap';
const CLAUDE = 'anthropic:claude-sonnet-4-6';
const VERTEX_CLAUDE = 'vertex-anthropic:claude-sonnet-4-6';
const VERTEX_GEMINI = 'google:gemini-3-pro-preview';

const anthropicFixtures = loadFixtureDirectory(
  fileURLToPath(new URL('../../anthropic/test/fixtures', import.meta.url)),
);
const geminiFixtures = loadFixtureDirectory(fileURLToPath(new URL('./fixtures', import.meta.url)));

/** The recorded thinking reply of a provider, its signatures replaced by `signature`. */
function signedReply(fixtures: typeof geminiFixtures, signature: string): ScriptedResponse {
  const response = fixtures.thinking?.[0];
  if (!response) throw new Error('no thinking fixture');
  const text = JSON.stringify(response).replaceAll(
    'EqQBCkYIBxgCKkCqZ3uRConformanceSignature',
    signature,
  );
  return JSON.parse(text) as ScriptedResponse;
}

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());

const toolIdMap = new ToolIdMap();
const history: Message[] = [];
const adapters: Record<string, ProviderAdapter> = {};

/** One turn of the session on `model`: the user's text, the reply kept as the next message. */
async function turn(model: string, reply: ScriptedResponse): Promise<unknown> {
  server.reset();
  server.enqueue(reply);
  history.push(
    createMessage({
      session_id: SESSION,
      role: 'user',
      content: [{ type: 'text', text: `to ${model}` }],
    }),
  );
  const adapter = adapters[model] as ProviderAdapter;
  const res: CanonicalResponse = await adapter.complete(
    { request_id: newRequestId(), model, max_output_tokens: 4096, messages: [...history] },
    { toolIdMap },
  );
  history.push(
    createMessage({
      session_id: SESSION,
      role: 'assistant',
      content: res.content,
      metadata: {
        model: res.model,
        provider: res.provider,
        ...(res.provider_raw ? { provider_raw: res.provider_raw } : {}),
      },
    }),
  );
  expect(server.requests).toHaveLength(1);
  return server.requests[0]?.body;
}

/** The signatures a Messages API body sends, per assistant turn. */
const claudeSignatures = (body: unknown): string[][] =>
  (body as { messages: Array<{ role: string; content: Array<Record<string, unknown>> }> }).messages
    .filter((m) => m.role === 'assistant')
    .map((m) =>
      m.content.flatMap((b) =>
        b.type === 'thinking'
          ? [String(b.signature)]
          : b.type === 'redacted_thinking'
            ? ['redacted']
            : [],
      ),
    );

/** The thought signatures a generateContent body sends, per model turn. */
const geminiSignatures = (body: unknown): string[][] =>
  (body as { contents: Array<{ role: string; parts: Array<Record<string, unknown>> }> }).contents
    .filter((c) => c.role === 'model')
    .map((c) => c.parts.flatMap((p) => (p.thoughtSignature ? [String(p.thoughtSignature)] : [])));

it('signatures go back only to the model and platform that produced them, across swaps and back', async () => {
  const base = { base_url: server.url, max_retries: 0 };
  adapters[CLAUDE] = new AnthropicAdapter({ ...base, api_key: 'sk-ant-swap-000000000000' });
  adapters[VERTEX_CLAUDE] = new VertexAnthropicAdapter({
    ...base,
    api_key: 'ya29.swap-000000000000',
    options: { project: 'p', region: 'global' },
  });
  adapters[VERTEX_GEMINI] = new GoogleAdapter({
    ...base,
    api_key: 'vertex-swap-000000000000',
    options: { vertexai: true, project: 'p', location: 'global' },
  });
  const claudeReply = signedReply(anthropicFixtures, 'sig-anthropic');
  const vertexReply = signedReply(anthropicFixtures, 'sig-vertex-claude');
  const geminiReply = signedReply(geminiFixtures, 'sig-vertex-gemini');

  await turn(CLAUDE, claudeReply);
  // Claude on Vertex: the Anthropic API's thinking is not its own
  expect(claudeSignatures(await turn(VERTEX_CLAUDE, vertexReply))).toEqual([[]]);
  // Gemini on Vertex: neither Claude's
  expect(geminiSignatures(await turn(VERTEX_GEMINI, geminiReply))).toEqual([[], []]);
  // and back: each model gets its own, and only its own
  expect(claudeSignatures(await turn(CLAUDE, claudeReply))).toEqual([
    ['sig-anthropic', 'redacted'],
    [],
    [],
  ]);
  expect(claudeSignatures(await turn(VERTEX_CLAUDE, vertexReply))).toEqual([
    [],
    ['sig-vertex-claude', 'redacted'],
    [],
    [],
  ]);
  expect(geminiSignatures(await turn(VERTEX_GEMINI, geminiReply))).toEqual([
    [],
    [],
    ['sig-vertex-gemini'],
    [],
    [],
  ]);
});
