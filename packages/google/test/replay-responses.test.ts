import { fileURLToPath } from 'node:url';
import {
  type LoopbackServer,
  loadFixtureDirectory,
  replayKit,
  type ScriptedResponse,
  startLoopbackServer,
} from '@yourtool/conformance';
import {
  conformsToToolIdRules,
  createMemoryLogger,
  type MemoryLogger,
  type ProviderAdapter,
  ToolIdMap,
} from '@yourtool/core';
import { OpenAIAdapter } from '@yourtool/openai';
import { OPENAI_RESPONSES_TOOL_ID_RULES } from '@yourtool/openai/codec';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SKIP_THOUGHT_SIGNATURE_VALIDATOR } from '../src/codec.js';
import { GoogleAdapter } from '../src/index.js';

/**
 * Cross-provider replay between Gemini and GPT-5 on OpenAI's Responses API (reasoning returned
 * encrypted, decision 0127), through the real adapters and SDKs against the loopback server.
 * It lives here because @yourtool/google already has @yourtool/openai as a dev dependency.
 */

const fixtures = (dir: string) =>
  loadFixtureDirectory(fileURLToPath(new URL(dir, import.meta.url)));
const googleFixtures = fixtures('./fixtures');
const responsesFixtures = fixtures('../../openai/test/fixtures-responses');
const fixture = (f: Record<string, ScriptedResponse[] | undefined>, scenario: string) => {
  const response = f[scenario]?.[0];
  if (!response) throw new Error(`no fixture ${scenario}`);
  return response;
};

const G3 = 'google:gemini-3-pro-preview';
const GPT = 'openai:gpt-5';
const SESSION = 'sess_replay_gemini_responses';
const GPT_ENCRYPTED = 'gAAAAABpGPT5-encrypted-reasoning-gemini';
const GPT_SUMMARY = 'Reading the README answers it.';
const GPT_CALL_ID = 'call_GeminiReplayGPT5Call001';

const READ_FILE = {
  name: 'read_file',
  description: 'Read a UTF-8 text file from the workspace.',
  input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
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
    responseId: 'resp_gemini_replay_1',
  },
};

/** A GPT-5 Responses reply: a reasoning item (summary, encrypted content), then a call. */
const GPT_TOOL_REPLY: ScriptedResponse = {
  type: 'json',
  body: {
    id: 'resp_gemini_replay_gpt',
    object: 'response',
    created_at: 1763800200,
    status: 'completed',
    error: null,
    incomplete_details: null,
    instructions: null,
    model: 'gpt-5-2025-08-07',
    output: [
      {
        id: 'rs_gemini_replay_gpt',
        type: 'reasoning',
        summary: [{ type: 'summary_text', text: GPT_SUMMARY }],
        encrypted_content: GPT_ENCRYPTED,
      },
      {
        id: 'fc_gemini_replay_gpt',
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
  const gpt = new OpenAIAdapter({ ...common, options: { api: 'responses' } }, { logger });
  opened.push(google, gpt);
  return { google, gpt };
}

const { user, reply, resultFor, call } = replayKit(SESSION, { tools: [READ_FILE] });
const lastBody = () => server.requests.at(-1)?.body as Record<string, unknown>;
const warned = (event: string) => logger.warnings().filter((w) => w.obj.event === event);

type GeminiBody = { contents: Array<{ role: string; parts: Array<Record<string, unknown>> }> };
const geminiParts = (role: string) =>
  (lastBody() as GeminiBody).contents.filter((c) => c.role === role).flatMap((c) => c.parts);
type ResponsesBody = { input: Array<Record<string, unknown>> };

describe('Gemini 3 and GPT-5 on the Responses API', () => {
  it('a Gemini tool loop on GPT-5: no Gemini signatures, call ids within 64 characters; back on Gemini its signatures return', async () => {
    const { google, gpt } = adapters();
    const map = new ToolIdMap();
    server.enqueue(GEMINI_TOOL_REPLY);
    const question = user('Summarize README.md');
    const first = await call(google, G3, [question], {
      toolIdMap: map,
      providerOptions: { google: { thinking: 'on' } },
    });
    expect(first.content.map((b) => b.type)).toEqual(['thinking', 'text', 'tool_use']);
    const history = [question, reply(first), resultFor(first, '# Project Foo')];

    server.enqueue(fixture(responsesFixtures, 'foreign-history'));
    const second = await call(gpt, GPT, history, map);
    expect(second.content).toEqual([{ type: 'text', text: 'Done.' }]);
    const body = lastBody() as ResponsesBody;
    expect(JSON.stringify(body)).not.toMatch(/GEMINI-(THOUGHT|CALL)-SIG/);
    expect(body.input.filter((i) => i.type === 'reasoning')).toEqual([]);
    const callItem = body.input.find((i) => i.type === 'function_call') as { call_id: string };
    const output = body.input.find((i) => i.type === 'function_call_output') as {
      call_id: string;
      output: string;
    };
    expect(conformsToToolIdRules(callItem.call_id, OPENAI_RESPONSES_TOOL_ID_RULES)).toBe(true);
    expect(output).toMatchObject({ call_id: callItem.call_id, output: '# Project Foo' });
    expect(warned('block_dropped').map((w) => w.obj.block_type)).toEqual(['thinking']);

    server.enqueue(fixture(googleFixtures, 'foreign-history'));
    await call(google, G3, [...history, reply(second), user('Thanks. Now LICENSE?')], map);
    const modelParts = geminiParts('model');
    expect(modelParts[0]).toMatchObject({ thought: true, thoughtSignature: 'GEMINI-THOUGHT-SIG' });
    expect(modelParts[2]).toMatchObject({ thoughtSignature: 'GEMINI-CALL-SIG' });
    expect(JSON.stringify(lastBody())).not.toContain(SKIP_THOUGHT_SIGNATURE_VALIDATOR);
  });

  it('a GPT-5 Responses tool loop on Gemini 3: reasoning dropped with a WARN, the call sent with the skip signature; back on GPT-5 its reasoning returns', async () => {
    const { google, gpt } = adapters();
    const map = new ToolIdMap();
    server.enqueue(GPT_TOOL_REPLY);
    const question = user('Summarize README.md');
    const first = await call(gpt, GPT, [question], map);
    expect(first.content[0]).toEqual({
      type: 'thinking',
      text: GPT_SUMMARY,
      signature: GPT_ENCRYPTED,
    });
    const history = [question, reply(first), resultFor(first, '# Project Foo')];

    server.enqueue(fixture(googleFixtures, 'foreign-history'));
    const second = await call(google, G3, history, map);
    const json = JSON.stringify(lastBody());
    expect(json).not.toContain(GPT_ENCRYPTED);
    expect(json).not.toContain(GPT_SUMMARY);
    const calls = geminiParts('model').filter((p) => p.functionCall);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.thoughtSignature).toBe(SKIP_THOUGHT_SIGNATURE_VALIDATOR);
    const response = geminiParts('user').find((p) => p.functionResponse)?.functionResponse as {
      id: string;
    };
    expect(response.id).toBe((calls[0]?.functionCall as { id?: string } | undefined)?.id);
    expect(warned('block_dropped').map((w) => w.obj.block_type)).toEqual(['thinking']);

    server.enqueue(fixture(responsesFixtures, 'foreign-history'));
    await call(gpt, GPT, [...history, reply(second), user('And LICENSE?')], map);
    const body = lastBody() as ResponsesBody;
    expect(body.input.filter((i) => i.type === 'reasoning')).toEqual([
      {
        type: 'reasoning',
        summary: [{ type: 'summary_text', text: GPT_SUMMARY }],
        encrypted_content: GPT_ENCRYPTED,
      },
    ]);
    expect(body.input.find((i) => i.type === 'function_call')).toMatchObject({
      call_id: GPT_CALL_ID,
    });
  });
});
