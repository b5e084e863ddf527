import { fileURLToPath } from 'node:url';
import { AnthropicAdapter } from '@yourtool/anthropic';
import {
  type LoopbackServer,
  loadFixtureDirectory,
  startLoopbackServer,
} from '@yourtool/conformance';
import {
  type CanonicalResponse,
  type ContentBlock,
  createMemoryLogger,
  createMessage,
  type Message,
  newRequestId,
  newSessionId,
  ToolIdMap,
} from '@yourtool/core';
import { OpenAIAdapter } from '@yourtool/openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DeepSeekAdapter, GroqAdapter, MistralAdapter, VllmAdapter } from '../src/index.js';

const dir = (d: string) => fileURLToPath(new URL(d, import.meta.url));
const anthropicFixtures = loadFixtureDirectory(dir('../../anthropic/test/fixtures'));
const openaiFixtures = loadFixtureDirectory(dir('../../openai/test/fixtures'));
const mistralFixtures = loadFixtureDirectory(dir('./fixtures-mistral'));
const vllmFixtures = loadFixtureDirectory(dir('./fixtures-vllm'));
const fixture = (set: typeof openaiFixtures, name: string) => {
  const found = set[name];
  if (!found) throw new Error(`no fixture ${name}`);
  return found;
};

const MISTRAL_ID = /^[a-zA-Z0-9]{9}$/;
const READ_FILE = {
  name: 'read_file',
  description: 'Read a file.',
  input_schema: {
    type: 'object',
    properties: { path: { type: 'string' } },
    required: ['path'],
  },
  side_effects: 'read' as const,
  requires_workspace: true,
};

type WireMessage = {
  role: string;
  content?: unknown;
  tool_calls?: Array<{ id: string }>;
  tool_call_id?: string;
  reasoning_content?: string;
};

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const session_id = newSessionId();
const user = (text: string) =>
  createMessage({ session_id, role: 'user', content: [{ type: 'text', text }] });
const assistant = (reply: CanonicalResponse) =>
  createMessage({
    session_id,
    role: 'assistant',
    content: reply.content,
    metadata: { model: reply.model, provider: reply.provider },
  });
const toolResults = (reply: CanonicalResponse): Message[] =>
  reply.content
    .filter((b): b is Extract<ContentBlock, { type: 'tool_use' }> => b.type === 'tool_use')
    .map((use) =>
      createMessage({
        session_id,
        role: 'tool',
        content: [
          {
            type: 'tool_result',
            tool_use_id: use.id,
            content: [{ type: 'text', text: '# Readme' }],
            is_error: false,
          },
        ],
        metadata: { parent_tool_use_id: use.id },
      }),
    );
const ask = (model: string, messages: Message[]) => ({
  request_id: newRequestId(),
  model,
  max_output_tokens: 512,
  messages,
  tools: [READ_FILE],
});
const lastBody = () => server.requests.at(-1)?.body as { messages: WireMessage[] };

/** A history whose tool calls were made on Anthropic (toolu_…) and OpenAI (call_…). */
async function foreignHistory(map: ToolIdMap): Promise<Message[]> {
  const anthropic = new AnthropicAdapter({ api_key: 'sk-ant-test-0000', base_url: server.url });
  const openai = new OpenAIAdapter({ api_key: 'sk-test-0000000000', base_url: server.url });
  const history: Message[] = [user('Read README.md')];
  server.enqueue(...fixture(anthropicFixtures, 'tool-call'));
  const first = await anthropic.complete(ask('anthropic:claude-sonnet-4-6', history), {
    toolIdMap: map,
  });
  history.push(assistant(first), ...toolResults(first), user('Now read it with the other model.'));
  server.enqueue(...fixture(openaiFixtures, 'tool-call'));
  const second = await openai.complete(ask('openai:gpt-4.1', history), { toolIdMap: map });
  history.push(assistant(second), ...toolResults(second), user('Summarize.'));
  await Promise.all([anthropic.close(), openai.close()]);
  return history;
}

describe('replay to a Mistral-configured adapter', () => {
  it('sends nine-alphanumeric ids, paired and stable, for tool calls made on Anthropic and OpenAI', async () => {
    const map = new ToolIdMap();
    const history = await foreignHistory(map);
    const providerIds = map.entries().map((e) => e.provider_id);
    expect(providerIds.some((id) => id.startsWith('toolu_'))).toBe(true);
    expect(providerIds.some((id) => id.startsWith('call_'))).toBe(true);

    const mistral = new MistralAdapter({ api_key: 'mistral-test-key', base_url: server.url });
    const replay = async (toolIdMap: ToolIdMap) => {
      server.enqueue(...fixture(mistralFixtures, 'text'));
      await mistral.complete(ask('mistral:mistral-large-latest', history), { toolIdMap });
      const messages = lastBody().messages;
      const calls = messages.flatMap((m) => (m.tool_calls ?? []).map((c) => c.id));
      const results = messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id);
      return { calls, results };
    };

    const sent = await replay(map);
    expect(sent.calls).toHaveLength(2);
    for (const id of [...sent.calls, ...sent.results]) expect(id).toMatch(MISTRAL_ID);
    expect(new Set(sent.calls).size, 'two calls, two distinct ids').toBe(2);
    expect(sent.results, 'each result answers its own call, in order').toEqual(sent.calls);
    expect(JSON.stringify(lastBody())).not.toMatch(/toolu_|call_Conformance/);

    // the same ids again: on a second replay, and after the map went through persistence
    expect(await replay(map)).toEqual(sent);
    expect(await replay(ToolIdMap.fromJSON(JSON.parse(JSON.stringify(map))))).toEqual(sent);
    // the Anthropic and OpenAI ids are still linked for their own providers
    expect(map.entries().filter((e) => e.provider === 'mistral')).toHaveLength(2);
    await mistral.close();
  });

  it('sends an id Mistral issued back unchanged, and maps the reply to the same canonical id', async () => {
    const map = new ToolIdMap();
    const mistral = new MistralAdapter({ api_key: 'mistral-test-key', base_url: server.url });
    server.enqueue(...fixture(mistralFixtures, 'tool-call'));
    const history: Message[] = [user('Read README.md')];
    const reply = await mistral.complete(ask('mistral:mistral-large-latest', history), {
      toolIdMap: map,
    });
    const use = reply.content.find((b) => b.type === 'tool_use');
    const issued = use && map.getProviderId('mistral', use.id);
    expect(issued).toMatch(MISTRAL_ID);
    history.push(assistant(reply), ...toolResults(reply));
    server.enqueue(...fixture(mistralFixtures, 'text'));
    await mistral.complete(ask('mistral:mistral-large-latest', history), { toolIdMap: map });
    const messages = lastBody().messages;
    expect(messages.find((m) => m.role === 'assistant')?.tool_calls?.[0]?.id).toBe(issued);
    expect(messages.find((m) => m.role === 'tool')?.tool_call_id).toBe(issued);
    await mistral.close();
  });
});

describe('unsigned thinking from reasoning fields', () => {
  const thinkingReply = async () => {
    const vllm = new VllmAdapter({
      base_url: server.url,
      options: { models: { 'Qwen/Qwen3-8B': { supports_thinking: true, supports_tools: true } } },
    });
    server.enqueue(...fixture(vllmFixtures, 'thinking'));
    const reply = await vllm.complete(ask('vllm:Qwen/Qwen3-8B', [user('Greet me.')]));
    await vllm.close();
    return reply;
  };

  it('is read as a thinking block without a signature', async () => {
    const reply = await thinkingReply();
    expect(reply.content[0]).toEqual({
      type: 'thinking',
      text: 'The user wants a greeting. Keep it short.',
    });
  });

  it('is dropped with a WARN when replayed to Anthropic, which requires signatures', async () => {
    const reply = await thinkingReply();
    const logger = createMemoryLogger();
    const anthropic = new AnthropicAdapter(
      { api_key: 'sk-ant-test-0000', base_url: server.url },
      { logger },
    );
    server.enqueue(...fixture(anthropicFixtures, 'text'));
    await anthropic.complete(
      ask('anthropic:claude-sonnet-4-6', [user('Greet me.'), assistant(reply), user('Again.')]),
    );
    expect(JSON.stringify(server.requests.at(-1)?.body)).not.toContain('The user wants a greeting');
    expect(logger.warnings().map((w) => w.obj.block_type)).toContain('thinking');
    await anthropic.close();
  });

  it('is never sent back to a deployment that does not replay reasoning (vLLM, Groq)', async () => {
    const reply = await thinkingReply();
    for (const adapter of [
      new VllmAdapter({
        base_url: server.url,
        options: { models: { 'Qwen/Qwen3-8B': { supports_thinking: true } } },
      }),
      new GroqAdapter({ api_key: 'gsk_test', base_url: server.url }),
    ]) {
      const model = adapter.name === 'vllm' ? 'vllm:Qwen/Qwen3-8B' : 'groq:openai/gpt-oss-120b';
      // the thinking came from this very model: still not sent, the deployment does not take it
      const own = createMessage({
        ...assistant(reply),
        metadata: { model, provider: adapter.name },
      });
      server.enqueue(...fixture(vllmFixtures, 'text'));
      await adapter.complete({
        ...ask(model, [user('Greet me.'), own, user('Again.')]),
        tools: [],
      });
      const sent = JSON.stringify(server.requests.at(-1)?.body);
      expect(sent).not.toContain('The user wants a greeting');
      expect(sent).not.toMatch(/"reasoning(_content)?"/);
      await adapter.close();
    }
  });

  it('goes back as reasoning_content to the same DeepSeek model only', async () => {
    const deepseek = new DeepSeekAdapter({ api_key: 'sk-deepseek-test', base_url: server.url });
    const reasoning: Message = createMessage({
      session_id,
      role: 'assistant',
      content: [
        { type: 'thinking', text: 'Check the file first.' },
        {
          type: 'tool_use',
          id: 'tu_01JZ00000000000000000000R1',
          name: 'read_file',
          input: { path: 'a' },
        },
      ],
      metadata: { model: 'deepseek:deepseek-reasoner', provider: 'deepseek' },
    });
    const result = createMessage({
      session_id,
      role: 'tool',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'tu_01JZ00000000000000000000R1',
          content: [{ type: 'text', text: 'A' }],
          is_error: false,
        },
      ],
      metadata: { parent_tool_use_id: 'tu_01JZ00000000000000000000R1' },
    });
    const history = [user('Read a.'), reasoning, result];
    server.enqueue(...fixture(vllmFixtures, 'text'), ...fixture(vllmFixtures, 'text'));
    await deepseek.complete(ask('deepseek:deepseek-reasoner', history));
    const same = lastBody().messages.find((m) => m.role === 'assistant');
    expect(same?.reasoning_content).toBe('Check the file first.');
    await deepseek.complete(ask('deepseek:deepseek-chat', history));
    expect(
      lastBody().messages.find((m) => m.role === 'assistant')?.reasoning_content,
    ).toBeUndefined();
    await deepseek.close();
  });
});
