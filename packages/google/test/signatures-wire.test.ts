import {
  type LoopbackServer,
  replayKit,
  type ScriptedResponse,
  startLoopbackServer,
} from '@yourtool/conformance';
import {
  type CanonicalResponse,
  createMemoryLogger,
  type MemoryLogger,
  newRequestId,
  ToolIdMap,
} from '@yourtool/core';
import { collectStream } from '@yourtool/core/adapter';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GoogleAdapter } from '../src/index.js';

/**
 * Thought signatures go back on exactly the part they came with (decision 0112), through the
 * real adapter and `@google/genai` against the loopback server: a Gemini reply is stored the way
 * a session stores it, the next turn is sent, and the recorded request body is read.
 */

const G3 = 'google:gemini-3-pro-preview';
const SIG = 'GEMINI-SIG-ON-BLANK-TEXT';
const SESSION = 'sess_signatures';

let server: LoopbackServer;
let logger: MemoryLogger;
let adapter: GoogleAdapter;

beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.reset();
  logger = createMemoryLogger();
  adapter = new GoogleAdapter(
    { api_key: 'gemini-test-0000000000', base_url: server.url, max_retries: 0 },
    { logger },
  );
});
afterEach(() => adapter.close());

const { user, reply, call } = replayKit(SESSION);

/** A reply whose parts are `parts`, as one `generateContent` body. */
const jsonReply = (parts: Array<Record<string, unknown>>): ScriptedResponse => ({
  type: 'json',
  body: {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 20, candidatesTokenCount: 8, totalTokenCount: 28 },
    modelVersion: 'gemini-3-pro-preview',
    responseId: 'resp_sig_1',
  },
});

/** The same parts streamed, one SSE chunk per part, the last chunk with the finish reason. */
const streamedReply = (parts: Array<Record<string, unknown>>): ScriptedResponse => ({
  type: 'stream',
  contentType: 'text/event-stream',
  chunks: parts.map((part, i) => {
    const last = i === parts.length - 1;
    const chunk = {
      candidates: [
        {
          content: { role: 'model', parts: [part] },
          index: 0,
          ...(last ? { finishReason: 'STOP' } : {}),
        },
      ],
      usageMetadata: {
        promptTokenCount: 20,
        ...(last ? { candidatesTokenCount: 8, totalTokenCount: 28 } : { totalTokenCount: 20 }),
      },
      modelVersion: 'gemini-3-pro-preview',
      responseId: 'resp_sig_1',
    };
    return `data: ${JSON.stringify(chunk)}\n\n`;
  }),
});

const ANSWER_PARTS = [{ text: '\n', thoughtSignature: SIG }, { text: 'The answer is 42.' }];

/** The body of the last request the server recorded. */
function lastBody(): unknown {
  const request = server.requests.at(-1);
  if (!request) throw new Error('no request was recorded');
  return request.body;
}
type Body = { contents: Array<{ role: string; parts: Array<Record<string, unknown>> }> };
/** The parts of the model turns of the last request body. */
const sentModelParts = () =>
  (lastBody() as Body).contents.filter((c) => c.role === 'model').flatMap((c) => c.parts);

/** One streamed call; its `message.complete` as the response a session would store. */
async function streamed(model: string, question: ReturnType<typeof user>) {
  const request_id = newRequestId();
  const { events, error } = await collectStream(
    adapter.stream(
      { request_id, model, messages: [question], max_output_tokens: 1024, stream: true },
      { toolIdMap: new ToolIdMap() },
    ),
  );
  expect(error).toBeUndefined();
  const complete = events.find((e) => e.type === 'message.complete');
  if (complete?.type !== 'message.complete') throw new Error('the stream did not complete');
  const response: CanonicalResponse = {
    request_id,
    model,
    provider: 'google',
    content: complete.final_content,
    stop_reason: complete.stop_reason,
    usage: complete.usage,
    latency_ms: complete.latency_ms,
    ...(complete.provider_raw ? { provider_raw: complete.provider_raw } : {}),
  };
  return response;
}

describe('a signature on a blank text part goes back on that part', () => {
  it('complete: the next request carries the blank part with its signature, then the answer unsigned', async () => {
    const question = user('What is the answer?');
    server.enqueue(jsonReply(ANSWER_PARTS), jsonReply([{ text: 'Yes.' }]));
    const first = await call(adapter, G3, [question], new ToolIdMap());
    await call(adapter, G3, [question, reply(first), user('Sure?')], new ToolIdMap());
    expect(sentModelParts()).toEqual(ANSWER_PARTS);
  });

  it('stream: the same, when the signature arrives on a stream chunk', async () => {
    const question = user('What is the answer?');
    server.enqueue(streamedReply(ANSWER_PARTS), jsonReply([{ text: 'Yes.' }]));
    const first = await streamed(G3, question);
    expect(first.content.map((b) => b.type === 'text' && b.text)).toEqual([
      '\n',
      'The answer is 42.',
    ]);
    await call(adapter, G3, [question, reply(first), user('Sure?')], new ToolIdMap());
    expect(sentModelParts()).toEqual(ANSWER_PARTS);
  });

  it('a signed blank part after signed text, before more text and a signed call: every signature on its own part', async () => {
    const parts = [
      { text: 'Which file?', thought: true, thoughtSignature: 'SIG-THOUGHT' },
      { text: 'Checking.', thoughtSignature: 'SIG-A' },
      { text: '\n', thoughtSignature: 'SIG-B' },
      { text: 'Now reading.' },
      {
        functionCall: { id: 'call_1', name: 'read_file', args: { path: 'a.md' } },
        thoughtSignature: 'SIG-C',
      },
    ];
    const question = user('Read a.md');
    server.enqueue(jsonReply(parts), jsonReply([{ text: 'Done.' }]));
    const map = new ToolIdMap();
    const first = await call(adapter, G3, [question], map);
    expect(first.content.map((b) => b.type)).toEqual([
      'thinking',
      'text',
      'text',
      'text',
      'tool_use',
    ]);
    const result = replayKit(SESSION).resultFor(first, '# A');
    await call(adapter, G3, [question, reply(first), result], map);
    expect(sentModelParts()).toEqual(parts);
  });

  it('to another Gemini model the signature is dropped with a WARN naming the block type', async () => {
    const question = user('What is the answer?');
    server.enqueue(jsonReply(ANSWER_PARTS), jsonReply([{ text: 'Yes.' }]));
    const first = await call(adapter, 'google:gemini-2.5-flash', [question], new ToolIdMap());
    await call(adapter, G3, [question, reply(first), user('Sure?')], new ToolIdMap());
    expect(JSON.stringify(server.requests.at(-1)?.body)).not.toContain(SIG);
    expect(sentModelParts()).toEqual([{ text: 'The answer is 42.' }]);
    const dropped = logger.warnings().filter((w) => w.obj.event === 'thought_signature_dropped');
    expect(dropped.map((w) => w.obj)).toEqual([
      expect.objectContaining({
        adapter: 'google',
        block_type: 'text',
        block_index: 0,
        session_id: SESSION,
      }),
    ]);
  });
});
