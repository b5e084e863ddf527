import { fileURLToPath } from 'node:url';
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
  type Message,
  newRequestId,
  newToolUseId,
  ToolIdMap,
} from '@yourtool/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GoogleAdapter } from '../src/index.js';

/**
 * Gemini's own tool-name rule (decision 0140), through the real adapter and `@google/genai`
 * against the loopback server: it takes `.`, `:` and `-`, so `fs.read` goes as it is. What every
 * adapter does with names outside its rule (derived on the wire, canonical back, one WARN each)
 * is the conformance scenarios `tool-name-derived`, `tool-name-derived-stream` and
 * `tool-name-fits`.
 */

const MODEL = 'google:gemini-2.5-flash';
const SESSION = 'sess_tool_names';
const NAMES = ['github/create issue', `server.${'tool'.repeat(20)}`];

const fixtures = loadFixtureDirectory(fileURLToPath(new URL('./fixtures', import.meta.url)));
/** A recorded tool-call reply whose call names `name` instead of `read_file`. */
function callNaming(scenario: string, name: string): ScriptedResponse {
  const response = fixtures[scenario]?.[0];
  if (!response) throw new Error(`no ${scenario} fixture`);
  return JSON.parse(JSON.stringify(response).replaceAll('read_file', name)) as ScriptedResponse;
}

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

const { user } = replayKit(SESSION);
/** An imported history: three tool uses (one name twice) with results, then a question. */
function history(): Message[] {
  const uses = [NAMES[0], NAMES[1], NAMES[0]].map((name) => ({
    type: 'tool_use' as const,
    id: newToolUseId(),
    name: name as string,
    input: { path: 'README.md' },
  }));
  const results = uses.map(
    (use): Message => ({
      ...user(''),
      role: 'tool',
      content: [
        {
          type: 'tool_result',
          tool_use_id: use.id,
          content: [{ type: 'text', text: '# Project Foo' }],
          is_error: false,
        },
      ],
      metadata: { status: 'complete', parent_tool_use_id: use.id },
    }),
  );
  const turn: Message = { ...user(''), role: 'assistant', content: uses };
  return [user('Read it.'), turn, ...results, user('Again.')];
}

/** The body of the last request the server recorded. */
function lastBody(): unknown {
  const request = server.requests.at(-1);
  if (!request) throw new Error('no request was recorded');
  return request.body;
}
type Part = { functionCall?: { name: string }; functionResponse?: { name: string } };
type Body = { contents: Array<{ role: string; parts: Part[] }> };
const parts = () => (lastBody() as Body).contents.flatMap((c) => c.parts);
const sentNames = () => parts().flatMap((p) => (p.functionCall ? [p.functionCall.name] : []));
const mapped = () =>
  logger
    .warnings()
    .filter((w) => w.obj.event === 'tool_name_mapped')
    .map((w) => [w.obj.tool_name, w.obj.wire_name]);

describe("tool names inside Gemini's rule (decision 0140)", () => {
  it("a name that fits Gemini's rule (fs.read) is sent as it is, without a WARN", async () => {
    server.enqueue(callNaming('tool-call', 'fs.read'));
    const messages = history().map((m) => ({
      ...m,
      content: m.content.map((b) => (b.type === 'tool_use' ? { ...b, name: 'fs.read' } : b)),
    }));
    const res = await adapter.complete(
      { request_id: newRequestId(), model: MODEL, messages, max_output_tokens: 256 },
      { toolIdMap: new ToolIdMap() },
    );
    expect(sentNames()).toEqual(['fs.read', 'fs.read', 'fs.read']);
    expect(mapped()).toEqual([]);
    expect(res.content.find((b) => b.type === 'tool_use')).toMatchObject({ name: 'fs.read' });
  });
});
