import { fileURLToPath } from 'node:url';
import { AnthropicAdapter } from '@yourtool/anthropic';
import {
  type LoopbackServer,
  loadFixtureDirectory,
  replayKit,
  type ScriptedResponse,
  startLoopbackServer,
} from '@yourtool/conformance';
import {
  ANTHROPIC_TOOL_ID_RULES,
  conformsToToolIdRules,
  createMemoryLogger,
  type MemoryLogger,
  type ProviderAdapter,
  ToolIdMap,
} from '@yourtool/core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OPENAI_RESPONSES_TOOL_ID_RULES } from '../src/codec.js';
import { OpenAIAdapter } from '../src/index.js';

/**
 * Cross-provider replay through the real adapters and SDKs against the loopback server: a GPT-5
 * tool loop on the Responses API (reasoning returned encrypted) continued on Claude with
 * thinking on, and back; and the other way round. Each request body is inspected.
 */

const anthropicFixtures = loadFixtureDirectory(
  fileURLToPath(new URL('../../anthropic/test/fixtures', import.meta.url)),
);
const responsesFixtures = loadFixtureDirectory(
  fileURLToPath(new URL('./fixtures-responses', import.meta.url)),
);
const fixture = (f: Record<string, ScriptedResponse[] | undefined>, scenario: string) => {
  const response = f[scenario]?.[0];
  if (!response) throw new Error(`no fixture ${scenario}`);
  return response;
};

const GPT = 'openai:gpt-5';
const CLAUDE = 'anthropic:claude-sonnet-4-6';
const SESSION = 'sess_replay_responses';
const GPT_ENCRYPTED = 'gAAAAABpGPT5-encrypted-reasoning-replay';
const GPT_SUMMARY = 'The README will say what the project is.';
const GPT_CALL_ID = 'call_Rp1aY9GPT5ToolCall00001';

const READ_FILE = {
  name: 'read_file',
  description: 'Read a UTF-8 text file from the workspace.',
  input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  side_effects: 'read' as const,
  requires_workspace: true,
};

/** A GPT-5 Responses reply: a reasoning item with summary and encrypted content, then a call. */
const GPT_TOOL_REPLY: ScriptedResponse = {
  type: 'json',
  body: {
    id: 'resp_replay0001',
    object: 'response',
    created_at: 1763800100,
    status: 'completed',
    error: null,
    incomplete_details: null,
    instructions: null,
    model: 'gpt-5-2025-08-07',
    output: [
      {
        id: 'rs_replay0001',
        type: 'reasoning',
        summary: [{ type: 'summary_text', text: GPT_SUMMARY }],
        encrypted_content: GPT_ENCRYPTED,
      },
      {
        id: 'fc_replay0001',
        type: 'function_call',
        status: 'completed',
        arguments: '{"path":"README.md"}',
        call_id: GPT_CALL_ID,
        name: 'read_file',
      },
    ],
    parallel_tool_calls: true,
    store: false,
    temperature: 1,
    tool_choice: 'auto',
    tools: [],
    top_p: 1,
    usage: {
      input_tokens: 380,
      input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
      output_tokens: 180,
      output_tokens_details: { reasoning_tokens: 128 },
      total_tokens: 560,
    },
  },
};

/** A Claude tool-call reply with signed thinking, redacted thinking, text and a tool use. */
const CLAUDE_TOOL_REPLY: ScriptedResponse = {
  type: 'json',
  body: {
    id: 'msg_01ReplayClaudeResponses',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-6',
    content: [
      { type: 'thinking', thinking: 'LICENSE next.', signature: 'CLAUDE-THINKING-SIG' },
      { type: 'redacted_thinking', data: 'CLAUDE-REDACTED-DATA' },
      { type: 'text', text: "I'll read the license." },
      {
        type: 'tool_use',
        id: 'toolu_01ReplayClaudeLicense',
        name: 'read_file',
        input: { path: 'LICENSE' },
      },
    ],
    stop_reason: 'tool_use',
    stop_sequence: null,
    usage: {
      input_tokens: 420,
      output_tokens: 60,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    },
  },
};

let server: LoopbackServer;
let logger: MemoryLogger;
const opened: ProviderAdapter[] = [];

beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.reset();
  logger = createMemoryLogger();
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((a) => a.close()));
});

function adapters() {
  const common = { api_key: 'replay-test-key-000000', base_url: server.url, max_retries: 0 };
  // how a models.yaml entry `{ type: openai, options: { api: responses } }` builds it
  const gpt = new OpenAIAdapter(
    { ...common, options: { api: 'responses', reasoning_summary: 'auto' } },
    { logger },
  );
  const claude = new AnthropicAdapter(common, { logger });
  opened.push(gpt, claude);
  return { gpt, claude };
}

const { user, reply, resultFor, call } = replayKit(SESSION, { tools: [READ_FILE] });
const lastBody = () => server.requests.at(-1)?.body as Record<string, unknown>;
const warned = (event: string) => logger.warnings().filter((w) => w.obj.event === event);

type ClaudeBody = {
  thinking?: unknown;
  messages: Array<{ role: string; content: Array<Record<string, unknown>> }>;
};
type ResponsesBody = {
  store?: boolean;
  include?: string[];
  input: Array<Record<string, unknown>>;
};

describe('a GPT-5 Responses tool loop with reasoning, continued on Claude and back', () => {
  it('Claude gets no GPT reasoning (thinking skipped with a WARN); GPT-5 gets its own reasoning back, encrypted, and Claude’s is dropped', async () => {
    const { gpt, claude } = adapters();
    const map = new ToolIdMap();

    // 1. GPT-5 reasons and calls a tool
    server.enqueue(GPT_TOOL_REPLY);
    const question = user('Summarize README.md, then LICENSE.');
    const first = await call(gpt, GPT, [question], map);
    expect(server.requests.at(-1)?.path).toBe('/responses');
    expect(first.content).toEqual([
      { type: 'thinking', text: GPT_SUMMARY, signature: GPT_ENCRYPTED },
      {
        type: 'tool_use',
        id: map.getCanonicalId('openai', GPT_CALL_ID),
        name: 'read_file',
        input: { path: 'README.md' },
      },
    ]);
    const history = [question, reply(first), resultFor(first, '# Project Foo')];

    // 2. Claude with thinking on continues the loop
    server.enqueue(CLAUDE_TOOL_REPLY);
    const second = await call(claude, CLAUDE, history, {
      toolIdMap: map,
      providerOptions: { anthropic: { thinking: 'adaptive' } },
    });
    const claudeBody = lastBody() as ClaudeBody;
    const claudeJson = JSON.stringify(claudeBody);
    expect(claudeJson).not.toContain(GPT_ENCRYPTED);
    expect(claudeJson).not.toContain(GPT_SUMMARY);
    expect(claudeBody.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    const toolUse = claudeBody.messages[1]?.content.find((b) => b.type === 'tool_use');
    const toolResult = claudeBody.messages[2]?.content.find((b) => b.type === 'tool_result');
    expect(conformsToToolIdRules(String(toolUse?.id), ANTHROPIC_TOOL_ID_RULES)).toBe(true);
    expect(toolResult?.tool_use_id).toBe(toolUse?.id);
    // the GPT turn has no Claude thinking block: Anthropic would 400 with thinking on
    expect(claudeBody.thinking).toBeUndefined();
    expect(warned('thinking_skipped')).toHaveLength(1);
    expect(warned('block_dropped').map((w) => [w.obj.block_type, w.obj.adapter])).toEqual([
      ['thinking', 'anthropic'],
    ]);
    expect(second.content.map((b) => b.type)).toEqual([
      'thinking',
      'redacted_thinking',
      'text',
      'tool_use',
    ]);

    // 3. back on GPT-5: its own reasoning returns encrypted; Claude's thinking is dropped
    logger = createMemoryLogger();
    const { gpt: gptAgain } = adapters();
    const full = [...history, reply(second), resultFor(second, 'MIT License')];
    server.enqueue(fixture(responsesFixtures, 'foreign-history'));
    const third = await call(gptAgain, GPT, full, map);
    expect(third.content).toEqual([{ type: 'text', text: 'Done.' }]);
    const body = lastBody() as ResponsesBody;
    expect(body.store).toBe(false);
    expect(body.include).toEqual(['reasoning.encrypted_content']);
    const json = JSON.stringify(body);
    expect(json).not.toContain('CLAUDE-THINKING-SIG');
    expect(json).not.toContain('CLAUDE-REDACTED-DATA');
    expect(json).not.toContain('rs_replay0001'); // no server item ids with store: false
    expect(json).not.toContain('fc_replay0001');
    expect(body.input.map((i) => i.type ?? `message:${String(i.role)}`)).toEqual([
      'message:user',
      'reasoning',
      'function_call',
      'function_call_output',
      'message',
      'function_call',
      'function_call_output',
    ]);
    expect(body.input[1]).toEqual({
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: GPT_SUMMARY }],
      encrypted_content: GPT_ENCRYPTED,
    });
    expect(body.input[2]).toMatchObject({ call_id: GPT_CALL_ID, name: 'read_file' });
    expect(body.input[3]).toEqual({
      type: 'function_call_output',
      call_id: GPT_CALL_ID,
      output: '# Project Foo',
    });
    const claudeCall = body.input[5] as { call_id: string };
    expect(conformsToToolIdRules(claudeCall.call_id, OPENAI_RESPONSES_TOOL_ID_RULES)).toBe(true);
    expect(body.input[6]).toMatchObject({ call_id: claudeCall.call_id, output: 'MIT License' });
    expect(
      warned('block_dropped')
        .map((w) => w.obj.block_type)
        .sort(),
    ).toEqual(['redacted_thinking', 'thinking']);
  });
});

describe('a Claude tool loop with thinking, continued on GPT-5 Responses and back', () => {
  it('GPT-5 gets no Claude thinking; Claude gets its own thinking back with the signature', async () => {
    const { gpt, claude } = adapters();
    const map = new ToolIdMap();
    server.enqueue(CLAUDE_TOOL_REPLY);
    const question = user('Read LICENSE.');
    const first = await call(claude, CLAUDE, [question], {
      toolIdMap: map,
      providerOptions: { anthropic: { thinking: 'adaptive' } },
    });
    expect((lastBody() as { thinking?: unknown }).thinking).toEqual({ type: 'adaptive' });
    const history = [question, reply(first), resultFor(first, 'MIT License')];

    server.enqueue(GPT_TOOL_REPLY);
    const second = await call(gpt, GPT, history, map);
    const body = lastBody() as ResponsesBody;
    const json = JSON.stringify(body);
    expect(json).not.toContain('CLAUDE-THINKING-SIG');
    expect(json).not.toContain('CLAUDE-REDACTED-DATA');
    expect(body.input.filter((i) => i.type === 'reasoning')).toEqual([]);
    const callItem = body.input.find((i) => i.type === 'function_call') as { call_id: string };
    // the canonical id conforms to OpenAI's rules, so it goes on the wire itself (decision 0006)
    const claudeUse = first.content.find((b) => b.type === 'tool_use');
    expect(callItem.call_id).toBe(claudeUse?.type === 'tool_use' ? claudeUse.id : null);
    expect(body.input.find((i) => i.type === 'function_call_output')).toMatchObject({
      call_id: callItem.call_id,
    });
    expect(
      warned('block_dropped')
        .map((w) => w.obj.block_type)
        .sort(),
    ).toEqual(['redacted_thinking', 'thinking']);

    // back on Claude (thinking on): its own thinking returns signed; GPT's reasoning does not
    server.enqueue(fixture(anthropicFixtures, 'foreign-history'));
    await call(claude, CLAUDE, [...history, reply(second), resultFor(second, '# Project Foo')], {
      toolIdMap: map,
      providerOptions: { anthropic: { thinking: 'adaptive' } },
    });
    const claudeJson = JSON.stringify(lastBody());
    expect(claudeJson).toContain('CLAUDE-THINKING-SIG');
    expect(claudeJson).toContain('CLAUDE-REDACTED-DATA');
    expect(claudeJson).not.toContain(GPT_ENCRYPTED);
    const claudeBody = lastBody() as ClaudeBody;
    const ids = claudeBody.messages.flatMap((m) =>
      m.content.filter((b) => b.type === 'tool_use').map((b) => String(b.id)),
    );
    const answered = claudeBody.messages.flatMap((m) =>
      m.content.filter((b) => b.type === 'tool_result').map((b) => String(b.tool_use_id)),
    );
    expect(ids).toEqual(answered);
    expect(ids[0]).toBe('toolu_01ReplayClaudeLicense');
  });
});
