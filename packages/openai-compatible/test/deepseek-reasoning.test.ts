import { fileURLToPath } from 'node:url';
import {
  type LoopbackServer,
  loadFixtureDirectory,
  replayKit,
  type ScriptedResponse,
  startLoopbackServer,
} from '@yourtool/conformance';
import {
  type CanonicalResponse,
  createMemoryLogger,
  createMessage,
  type MemoryLogger,
  type Message,
  ToolIdMap,
} from '@yourtool/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DeepSeekAdapter } from '../src/index.js';

/**
 * DeepSeek's thinking mode answers 400 ("The `reasoning_content` in the thinking mode must be
 * passed back to the API") when an assistant message with tool calls comes without
 * `reasoning_content`. Sent to a thinking model, every such message carries it: its own
 * reasoning when it has some from that model, else "" (issue 24, item 2).
 */

const deepseekFixtures = loadFixtureDirectory(
  fileURLToPath(new URL('./fixtures-deepseek', import.meta.url)),
);
const REASONER = 'deepseek:deepseek-reasoner';
const CHAT = 'deepseek:deepseek-chat';
const SESSION = 'sess_deepseek_reasoning';
const READ_FILE = {
  name: 'read_file',
  description: 'Read a file.',
  input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  side_effects: 'read' as const,
  requires_workspace: true,
};

/** A deepseek-reasoner tool-call reply, reasoning in `reasoning_content` (may be ""). */
const toolReply = (reasoning: string, callId: string, path: string): ScriptedResponse => ({
  type: 'json',
  body: {
    id: `ds-${callId}`,
    object: 'chat.completion',
    created: 1763800050,
    model: 'deepseek-reasoner',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: '',
          reasoning_content: reasoning,
          tool_calls: [
            {
              index: 0,
              id: callId,
              type: 'function',
              function: { name: 'read_file', arguments: JSON.stringify({ path }) },
            },
          ],
        },
        logprobs: null,
        finish_reason: 'tool_calls',
      },
    ],
    usage: { prompt_tokens: 120, completion_tokens: 40, total_tokens: 160 },
  },
});
const TEXT_REPLY: ScriptedResponse = {
  type: 'json',
  body: {
    id: 'ds-text',
    object: 'chat.completion',
    created: 1763800051,
    model: 'deepseek-reasoner',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: 'Done.', reasoning_content: 'All read.' },
        finish_reason: 'stop',
      },
    ],
    usage: { prompt_tokens: 200, completion_tokens: 10, total_tokens: 210 },
  },
};

let server: LoopbackServer;
let logger: MemoryLogger;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());

/** The body of the last request the loopback server recorded. */
function lastBody(): unknown {
  const recorded = server.requests.at(-1);
  if (!recorded) throw new Error('no request reached the server');
  return recorded.body;
}
beforeEach(() => {
  server.reset();
  logger = createMemoryLogger();
});

const { user, reply, resultFor, call } = replayKit(SESSION, { tools: [READ_FILE] });
type WireMessage = {
  role: string;
  content?: unknown;
  tool_calls?: unknown[];
  reasoning_content?: unknown;
};
const sent = () => (lastBody() as { messages: WireMessage[] }).messages;

/** A Claude turn as the Anthropic adapter stores it: signed thinking, text, a tool use. */
function claudeTurn(map: ToolIdMap): Message {
  const id = map.toCanonical('anthropic', 'toolu_01DeepSeekForeignClaude01');
  return createMessage({
    session_id: SESSION,
    role: 'assistant',
    content: [
      { type: 'thinking', text: 'CLAUDE-THINKING-TEXT', signature: 'CLAUDE-SIG-0001' },
      { type: 'text', text: 'Reading the license.' },
      { type: 'tool_use', id, name: 'read_file', input: { path: 'LICENSE' } },
    ],
    metadata: {
      model: 'anthropic:claude-sonnet-4-6',
      provider: 'anthropic',
      provider_raw: {
        anthropic: { id: 'msg_01DeepSeekForeign', stop_reason: 'tool_use', stop_sequence: null },
      },
    },
  });
}

const toolResult = (use: Message, text: string) =>
  resultFor({ content: use.content } as CanonicalResponse, text);

async function mixedHistory(adapter: DeepSeekAdapter, map: ToolIdMap): Promise<Message[]> {
  const history: Message[] = [user('Read README.md, NOTES.md and LICENSE.')];
  server.enqueue(toolReply('README first.', 'call_00_DsOwnReasoned01', 'README.md'));
  const own = await call(adapter, REASONER, history, map);
  history.push(reply(own), resultFor(own, '# Readme'));
  server.enqueue(toolReply('', 'call_00_DsOwnEmpty00002', 'NOTES.md'));
  const empty = await call(adapter, REASONER, history, map);
  history.push(reply(empty), resultFor(empty, 'notes'));
  const claude = claudeTurn(map);
  history.push(claude, toolResult(claude, 'MIT License'));
  return history;
}

describe('deepseek preset, thinking model', () => {
  it('sends reasoning_content on every assistant message with tool calls: its own, else ""', async () => {
    const adapter = new DeepSeekAdapter(
      { api_key: 'sk-deepseek-test', base_url: server.url },
      { logger },
    );
    const map = new ToolIdMap();
    const history = await mixedHistory(adapter, map);
    logger = createMemoryLogger();
    const replay = new DeepSeekAdapter(
      { api_key: 'sk-deepseek-test', base_url: server.url },
      { logger },
    );
    server.enqueue(TEXT_REPLY);
    await call(replay, REASONER, history, map);
    const withCalls = sent().filter((m) => m.role === 'assistant' && (m.tool_calls ?? []).length);
    expect(withCalls).toHaveLength(3);
    expect(withCalls.map((m) => m.reasoning_content)).toEqual(['README first.', '', '']);
    const json = JSON.stringify(sent());
    expect(json).not.toContain('CLAUDE-SIG-0001');
    expect(json).not.toContain('CLAUDE-THINKING-TEXT');
    const indexes = sent().flatMap((m, i) => (m.tool_calls?.length ? [i] : []));
    expect(
      logger
        .warnings()
        .filter((w) => w.obj.event === 'reasoning_filled')
        .map((w) => [w.obj.field, w.obj.message_index]),
    ).toEqual([
      ['reasoning_content', indexes[1]],
      ['reasoning_content', indexes[2]],
    ]);
    await Promise.all([adapter.close(), replay.close()]);
  });

  it('streams send the same', async () => {
    const adapter = new DeepSeekAdapter(
      { api_key: 'sk-deepseek-test', base_url: server.url },
      { logger },
    );
    const map = new ToolIdMap();
    const history = await mixedHistory(adapter, map);
    server.enqueue(...(deepseekFixtures['thinking-stream'] ?? []));
    for await (const _ of adapter.stream({
      request_id: 'req_ds_stream',
      model: REASONER,
      messages: history,
      tools: [READ_FILE],
      max_output_tokens: 256,
      stream: true,
    })) {
      // drain
    }
    const withCalls = sent().filter((m) => m.role === 'assistant' && (m.tool_calls ?? []).length);
    expect(withCalls.map((m) => typeof m.reasoning_content)).toEqual([
      'string',
      'string',
      'string',
    ]);
    await adapter.close();
  });

  it('sends no reasoning field to deepseek-chat, which does not think', async () => {
    const adapter = new DeepSeekAdapter(
      { api_key: 'sk-deepseek-test', base_url: server.url },
      { logger },
    );
    const map = new ToolIdMap();
    const history = await mixedHistory(adapter, map);
    server.enqueue(TEXT_REPLY);
    await call(adapter, CHAT, history, map);
    expect(sent().some((m) => 'reasoning_content' in m)).toBe(false);
    await adapter.close();
  });
});
