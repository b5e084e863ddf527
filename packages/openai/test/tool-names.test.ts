import { fileURLToPath } from 'node:url';
import {
  type LoopbackServer,
  loadFixtureDirectory,
  type ScriptedResponse,
  startLoopbackServer,
} from '@yourtool/conformance';
import {
  type CanonicalRequestInput,
  createMemoryLogger,
  type MemoryLogger,
  type Message,
  newRequestId,
  newToolUseId,
  type StreamEvent,
} from '@yourtool/core';
import { fitsToolNameRules, STRICT_TOOL_NAME_RULES, wireToolName } from '@yourtool/core/adapter';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OpenAIAdapter, OpenAIResponsesAdapter } from '../src/index.js';
import { assistant, readFile, result, text, user } from './helpers.js';

/**
 * Tool names in history (decision 0140), through the real SDK on the loopback server: a tool
 * use named outside OpenAI's rule goes out under the name core derives, and a reply calling that
 * name comes back under the canonical one, on Chat Completions and on the Responses API.
 */

const chatFixtures = loadFixtureDirectory(fileURLToPath(new URL('./fixtures', import.meta.url)));
const responsesFixtures = loadFixtureDirectory(
  fileURLToPath(new URL('./fixtures-responses', import.meta.url)),
);

const FOREIGN = 'fs.read';
const LONG = `server.${'tool'.repeat(20)}`;
const DERIVED = wireToolName(FOREIGN, STRICT_TOOL_NAME_RULES);

/** A recorded reply with its `read_file` call renamed to `name`, as the provider would send it. */
function replyCalling(
  set: Record<string, ScriptedResponse[] | undefined>,
  scenario: string,
  name: string,
): ScriptedResponse[] {
  const found = set[scenario];
  if (!found) throw new Error(`no fixture ${scenario}`);
  return JSON.parse(JSON.stringify(found).replaceAll('read_file', name)) as ScriptedResponse[];
}

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

/** A history imported from elsewhere: `fs.read` twice and an 84-character MCP-style name. */
function importedHistory(model: string): Message[] {
  const ids = [newToolUseId(), newToolUseId(), newToolUseId()];
  const names = [FOREIGN, LONG, FOREIGN];
  const messages: Message[] = [user(text('Read both.'))];
  names.forEach((name, i) => {
    const id = ids[i] as string;
    messages.push(
      assistant([{ type: 'tool_use', id, name, input: { path: 'README.md' } }], model),
      result(id, [text('# Project Foo')]),
    );
  });
  messages.push(user(text('Once more.')));
  return messages;
}

const ask = (model: string, stream = false): CanonicalRequestInput => ({
  request_id: newRequestId(),
  model,
  max_output_tokens: 256,
  messages: importedHistory(model),
  tools: [readFile],
  stream,
});

const drain = async (events: AsyncIterable<StreamEvent>) => {
  const out: StreamEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
};

const mapped = () =>
  logger
    .warnings()
    .filter((w) => w.obj.event === 'tool_name_mapped')
    .map((w) => [w.obj.tool_name, w.obj.wire_name]);

const completedToolNames = (events: StreamEvent[]) => {
  const done = events.find((e) => e.type === 'message.complete');
  if (done?.type !== 'message.complete') throw new Error('no message.complete');
  return done.final_content.flatMap((b) => (b.type === 'tool_use' ? [b.name] : []));
};

describe('Chat Completions: tool names outside the rule', () => {
  type ChatBody = { messages: Array<{ tool_calls?: Array<{ function: { name: string } }> }> };
  const sentNames = () =>
    (lastBody() as ChatBody).messages.flatMap((m) =>
      (m.tool_calls ?? []).map((c) => c.function.name),
    );
  const adapter = () =>
    new OpenAIAdapter({ api_key: 'sk-test-0000000000000000', base_url: server.url }, { logger });

  it('go out under derived names (one WARN per name), and a reply calling one comes back canonical', async () => {
    server.enqueue(...replyCalling(chatFixtures, 'tool-call', DERIVED));
    const reply = await adapter().complete(ask('openai:gpt-4.1'));
    const names = sentNames();
    expect(names).toEqual([DERIVED, wireToolName(LONG), DERIVED]);
    for (const name of names) expect(fitsToolNameRules(name, STRICT_TOOL_NAME_RULES)).toBe(true);
    expect(mapped()).toEqual([
      [FOREIGN, DERIVED],
      [LONG, wireToolName(LONG)],
    ]);
    expect(reply.content.find((b) => b.type === 'tool_use')).toMatchObject({ name: FOREIGN });
  });

  it('reads a streamed call of a derived name back as the canonical name', async () => {
    server.enqueue(...replyCalling(chatFixtures, 'tool-call-stream', DERIVED));
    const events = await drain(adapter().stream(ask('openai:gpt-4.1', true)));
    const start = events.find((e) => e.type === 'tool.use_start');
    expect(start).toMatchObject({ tool_name: FOREIGN });
    expect(completedToolNames(events)).toEqual([FOREIGN]);
    expect(sentNames()).toContain(DERIVED);
  });

  it('leaves a name that fits the rule as it is, without a WARN', async () => {
    server.enqueue(...(chatFixtures['tool-call'] ?? []));
    const reply = await adapter().complete({
      ...ask('openai:gpt-4.1'),
      messages: [user(text('Read README.md'))],
    });
    expect(reply.content.find((b) => b.type === 'tool_use')).toMatchObject({ name: 'read_file' });
    expect(mapped()).toEqual([]);
  });
});

describe('Responses API: tool names outside the rule', () => {
  type ResponsesBody = { input: Array<{ type?: string; name?: string }> };
  const sentNames = () =>
    (lastBody() as ResponsesBody).input.flatMap((i) =>
      i.type === 'function_call' ? [String(i.name)] : [],
    );
  const adapter = () =>
    new OpenAIResponsesAdapter(
      { api_key: 'sk-test-0000000000000000', base_url: server.url },
      { logger },
    );

  it('go out under derived names (one WARN per name), and a reply calling one comes back canonical', async () => {
    server.enqueue(...replyCalling(responsesFixtures, 'tool-call', DERIVED));
    const reply = await adapter().complete(ask('openai:gpt-5'));
    expect(sentNames()).toEqual([DERIVED, wireToolName(LONG), DERIVED]);
    expect(mapped()).toEqual([
      [FOREIGN, DERIVED],
      [LONG, wireToolName(LONG)],
    ]);
    expect(reply.content.find((b) => b.type === 'tool_use')).toMatchObject({ name: FOREIGN });
  });

  it('reads a streamed call of a derived name back as the canonical name', async () => {
    server.enqueue(...replyCalling(responsesFixtures, 'tool-call-stream', DERIVED));
    const events = await drain(adapter().stream(ask('openai:gpt-5', true)));
    expect(events.find((e) => e.type === 'tool.use_start')).toMatchObject({ tool_name: FOREIGN });
    expect(completedToolNames(events)).toEqual([FOREIGN]);
    expect(sentNames()).toContain(DERIVED);
  });
});
