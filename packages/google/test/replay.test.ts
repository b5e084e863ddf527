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
  createMemoryLogger,
  type MemoryLogger,
  type ProviderAdapter,
  ToolIdMap,
} from '@yourtool/core';
import { OllamaAdapter } from '@yourtool/ollama';
import { OpenAIAdapter } from '@yourtool/openai';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SKIP_THOUGHT_SIGNATURE_VALIDATOR } from '../src/codec.js';
import { GoogleAdapter } from '../src/index.js';

/**
 * Cross-provider replay through the real adapters and SDKs against the loopback server: a
 * tool loop started on one provider continues on another, and each request body is inspected.
 */

const fixtures = (pkg: string) =>
  loadFixtureDirectory(fileURLToPath(new URL(`../../${pkg}/test/fixtures`, import.meta.url)));
const anthropicFixtures = fixtures('anthropic');
const openaiFixtures = fixtures('openai');
const ollamaFixtures = fixtures('ollama');
const googleFixtures = fixtures('google');

const G3 = 'google:gemini-3-pro-preview';
const G25 = 'google:gemini-2.5-flash';
const CLAUDE = 'anthropic:claude-sonnet-4-6';
const GPT = 'openai:gpt-5';
const QWEN = 'ollama:qwen3-vl:8b';
const SESSION = 'sess_replay';

const READ_FILE = {
  name: 'read_file',
  description: 'Read a UTF-8 text file from the workspace.',
  input_schema: {
    type: 'object',
    properties: { path: { type: 'string' } },
    required: ['path'],
  },
  side_effects: 'read' as const,
  requires_workspace: true,
};

/** A Gemini 3 tool-call reply: thought summary, text, one signed call (no id, as Gemini sends). */
const GEMINI_TOOL_REPLY: ScriptedResponse = {
  type: 'json',
  body: {
    candidates: [
      {
        content: {
          role: 'model',
          parts: [
            { text: 'The README will say.', thought: true, thoughtSignature: 'GEMINI-THOUGHT-SIG' },
            { text: "I'll read the file." },
            {
              functionCall: { name: 'read_file', args: { path: 'README.md' } },
              thoughtSignature: 'GEMINI-CALL-SIG',
            },
          ],
        },
        finishReason: 'STOP',
        index: 0,
      },
    ],
    usageMetadata: {
      promptTokenCount: 380,
      candidatesTokenCount: 20,
      thoughtsTokenCount: 32,
      totalTokenCount: 432,
    },
    modelVersion: 'gemini-3-pro-preview',
    responseId: 'resp_replay_1',
  },
};

/** A Claude tool-call reply with signed thinking, redacted thinking, text and a tool use. */
const CLAUDE_TOOL_REPLY: ScriptedResponse = {
  type: 'json',
  body: {
    id: 'msg_01ReplayClaudeToolLoop',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-6',
    content: [
      { type: 'thinking', thinking: 'Read it first.', signature: 'CLAUDE-THINKING-SIG' },
      { type: 'redacted_thinking', data: 'CLAUDE-REDACTED-DATA' },
      { type: 'text', text: "I'll read the file." },
      {
        type: 'tool_use',
        id: 'toolu_01ReplayClaude',
        name: 'read_file',
        input: { path: 'README.md' },
      },
    ],
    stop_reason: 'tool_use',
    stop_sequence: null,
    usage: {
      input_tokens: 380,
      output_tokens: 52,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    },
  },
};

const fixture = (f: Record<string, ScriptedResponse[] | undefined>, scenario: string) => {
  const response = f[scenario]?.[0];
  if (!response) throw new Error(`no fixture ${scenario}`);
  return response;
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
  const google = new GoogleAdapter(common, { logger });
  const anthropic = new AnthropicAdapter(common, { logger });
  const openai = new OpenAIAdapter(common, { logger });
  const ollama = new OllamaAdapter(
    { ...common, options: { detect_capabilities: false } },
    {
      logger,
      capabilityOverrides: {
        [QWEN]: { supports_tools: true, supports_thinking: true, supports_images: true },
      },
    },
  );
  opened.push(google, anthropic, openai, ollama);
  return { google, anthropic, openai, ollama };
}

const { user, reply, resultFor, call } = replayKit(SESSION, { tools: [READ_FILE] });
const lastBody = () => server.requests.at(-1)?.body as Record<string, unknown>;
const warned = (event: string) => logger.warnings().filter((w) => w.obj.event === event);

type GeminiBody = {
  contents: Array<{ role: string; parts: Array<Record<string, unknown>> }>;
};
/** The `id` of a Gemini function call part. */
const callId = (part: Record<string, unknown> | undefined) =>
  (part?.functionCall as { id?: string } | undefined)?.id;
const geminiParts = (role: string) =>
  (lastBody() as GeminiBody).contents.filter((c) => c.role === role).flatMap((c) => c.parts);

describe('a Gemini tool loop continued elsewhere', () => {
  async function geminiToolLoop() {
    const a = adapters();
    const map = new ToolIdMap();
    server.enqueue(GEMINI_TOOL_REPLY);
    const question = user('Summarize README.md');
    const first = await call(a.google, G3, [question], {
      toolIdMap: map,
      providerOptions: { google: { thinking: 'on' } },
    });
    const history = [question, reply(first), resultFor(first, '# Project Foo')];
    return { a, map, first, history };
  }

  it('on Claude with thinking on: no Gemini signature leaves, ids conform, thinking is skipped with a WARN', async () => {
    const { a, map, first, history } = await geminiToolLoop();
    expect(first.content.map((b) => b.type)).toEqual(['thinking', 'text', 'tool_use']);
    server.enqueue(fixture(anthropicFixtures, 'foreign-history'));
    const res = await call(a.anthropic, CLAUDE, history, {
      toolIdMap: map,
      providerOptions: { anthropic: { thinking: 'adaptive' } },
    });
    expect(res.content).toEqual([{ type: 'text', text: 'Done.' }]);
    const body = lastBody() as {
      thinking?: unknown;
      messages: Array<{ role: string; content: Array<Record<string, unknown>> }>;
    };
    const json = JSON.stringify(body);
    expect(json).not.toContain('GEMINI-THOUGHT-SIG');
    expect(json).not.toContain('GEMINI-CALL-SIG');
    expect(body.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    const toolUse = body.messages[1]?.content.find((b) => b.type === 'tool_use');
    const toolResult = body.messages[2]?.content.find((b) => b.type === 'tool_result');
    expect(String(toolUse?.id)).toMatch(/^[a-zA-Z0-9_-]+$/);
    expect(toolResult?.tool_use_id).toBe(toolUse?.id);
    // the Gemini turn has no Claude thinking block: Anthropic would 400 with thinking on
    expect(body.thinking).toBeUndefined();
    expect(warned('thinking_skipped')).toHaveLength(1);
    expect(warned('block_dropped').map((w) => w.obj.block_type)).toEqual(['thinking']);

    // ... and back on Gemini 3: its own signatures return verbatim, on the same parts
    server.enqueue(fixture(googleFixtures, 'foreign-history'));
    await call(a.google, G3, [...history, reply(res), user('Thanks. Now LICENSE?')], map);
    const modelParts = geminiParts('model');
    expect(modelParts[0]).toMatchObject({ thought: true, thoughtSignature: 'GEMINI-THOUGHT-SIG' });
    expect(modelParts[2]).toMatchObject({
      functionCall: { name: 'read_file', args: { path: 'README.md' } },
      thoughtSignature: 'GEMINI-CALL-SIG',
    });
    expect(JSON.stringify(lastBody())).not.toContain(SKIP_THOUGHT_SIGNATURE_VALIDATOR);
  });

  it('on GPT-5: tool_calls and a tool message with matching ids, no thinking or signatures', async () => {
    const { a, map, history } = await geminiToolLoop();
    server.enqueue(fixture(openaiFixtures, 'foreign-history'));
    await call(a.openai, GPT, history, map);
    const body = lastBody() as {
      messages: Array<{ role: string; tool_calls?: Array<{ id: string }>; tool_call_id?: string }>;
    };
    expect(JSON.stringify(body)).not.toMatch(/GEMINI-(THOUGHT|CALL)-SIG/);
    const assistant = body.messages.find((m) => m.role === 'assistant');
    const tool = body.messages.find((m) => m.role === 'tool');
    expect(assistant?.tool_calls?.[0]?.id.length).toBeLessThanOrEqual(40);
    expect(tool?.tool_call_id).toBe(assistant?.tool_calls?.[0]?.id);
  });

  it('on Ollama: the call and its result by name, no signatures', async () => {
    const { a, map, history } = await geminiToolLoop();
    server.enqueue(fixture(ollamaFixtures, 'foreign-history'));
    await call(a.ollama, QWEN, history, map);
    const body = lastBody() as {
      messages: Array<{
        role: string;
        tool_calls?: unknown[];
        tool_name?: string;
        thinking?: string;
      }>;
    };
    expect(JSON.stringify(body)).not.toMatch(/GEMINI-(THOUGHT|CALL)-SIG/);
    expect(body.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(body.messages[1]?.tool_calls).toHaveLength(1);
    expect(body.messages[1]?.thinking).toBeUndefined();
    expect(body.messages[2]?.tool_name).toBe('read_file');
  });
});

describe('tool loops from elsewhere continued on Gemini', () => {
  it('a Claude tool loop (with thinking) on Gemini 3: Claude thinking dropped, the call sent with the skip signature', async () => {
    const a = adapters();
    const map = new ToolIdMap();
    server.enqueue(CLAUDE_TOOL_REPLY);
    const question = user('Summarize README.md');
    const claude = await call(a.anthropic, CLAUDE, [question], {
      toolIdMap: map,
      providerOptions: { anthropic: { thinking: 'adaptive' } },
    });
    expect((lastBody() as { thinking?: unknown }).thinking).toEqual({ type: 'adaptive' });
    const history = [question, reply(claude), resultFor(claude, '# Project Foo')];

    server.enqueue(fixture(googleFixtures, 'foreign-history'));
    const res = await call(a.google, G3, history, map);
    expect(res.content).toEqual([{ type: 'text', text: 'Done.' }]);
    const json = JSON.stringify(lastBody());
    expect(json).not.toContain('CLAUDE-THINKING-SIG');
    expect(json).not.toContain('CLAUDE-REDACTED-DATA');
    expect((lastBody() as GeminiBody).contents.map((c) => c.role)).toEqual([
      'user',
      'model',
      'user',
    ]);
    const calls = geminiParts('model').filter((p) => p.functionCall);
    expect(calls).toEqual([
      {
        functionCall: { id: expect.any(String), name: 'read_file', args: { path: 'README.md' } },
        thoughtSignature: SKIP_THOUGHT_SIGNATURE_VALIDATOR,
      },
    ]);
    const response = geminiParts('user').find((p) => p.functionResponse)?.functionResponse as {
      id: string;
      response: unknown;
    };
    expect(response.id).toBe(callId(calls[0]));
    expect(response.response).toEqual({ output: '# Project Foo' });
    expect(warned('thought_signature_substituted')).toHaveLength(1);
    expect(
      warned('block_dropped')
        .map((w) => w.obj.block_type)
        .sort(),
    ).toEqual(['redacted_thinking', 'thinking']);
  });

  it('a GPT-5 tool loop on Gemini 2.5: ids kept consistent, no skip signature needed', async () => {
    const a = adapters();
    const map = new ToolIdMap();
    server.enqueue(fixture(openaiFixtures, 'tool-call'));
    const question = user('Summarize README.md');
    const gpt = await call(a.openai, GPT, [question], map);
    const history = [question, reply(gpt), resultFor(gpt, '# Project Foo')];
    server.enqueue(fixture(googleFixtures, 'foreign-history'));
    await call(a.google, G25, history, map);
    const calls = geminiParts('model').filter((p) => p.functionCall);
    const responses = geminiParts('user').filter((p) => p.functionResponse);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.thoughtSignature).toBeUndefined();
    expect((responses[0]?.functionResponse as { id?: string } | undefined)?.id).toBe(
      callId(calls[0]),
    );
  });

  it('an Ollama tool loop (thinking, id-less call) on Gemini 3', async () => {
    const a = adapters();
    const map = new ToolIdMap();
    server.enqueue(fixture(ollamaFixtures, 'tool-call'));
    const question = user('Summarize README.md');
    const qwen = await call(a.ollama, QWEN, [question], map);
    const history = [question, reply(qwen), resultFor(qwen, '# Project Foo')];
    server.enqueue(fixture(googleFixtures, 'foreign-history'));
    await call(a.google, G3, history, map);
    const calls = geminiParts('model').filter((p) => p.functionCall);
    expect(calls[0]?.thoughtSignature).toBe(SKIP_THOUGHT_SIGNATURE_VALIDATOR);
    expect(JSON.stringify(lastBody())).not.toContain('"thought":true');
  });
});
