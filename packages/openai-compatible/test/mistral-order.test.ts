import { fileURLToPath } from 'node:url';
import {
  type LoopbackServer,
  loadFixtureDirectory,
  startLoopbackServer,
} from '@yourtool/conformance';
import {
  AdapterOptionError,
  type CanonicalRequestInput,
  createMemoryLogger,
  type MemoryLogger,
  type Message,
  newRequestId,
  newToolUseId,
} from '@yourtool/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assistant, PNG, readFile, result, text, user } from '../../openai/test/helpers.js';
import { REQUEST_ORDER_BRIDGE_TEXT, REQUEST_ORDER_OPENING_TEXT } from '../src/codec.js';
import {
  GroqAdapter,
  MistralAdapter,
  type OpenAICompatibleAdapter,
  VllmAdapter,
} from '../src/index.js';

/**
 * Mistral's request validator (mistral-common) refuses a user message directly after a tool
 * message ("Unexpected role 'user' after role 'tool'") and a history ending in an assistant
 * message without `prefix: true` ("Expected last role User or Tool (or Assistant with prefix
 * True)"). The `mistral` preset's `request_order` rules repair both, on the wire, with a WARN
 * (issue 24, item 1).
 */

const fixtures = loadFixtureDirectory(
  fileURLToPath(new URL('./fixtures-mistral', import.meta.url)),
);
const LARGE = 'mistral:mistral-large-latest';
const SMALL = 'mistral:mistral-small-latest';

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

type WireMessage = {
  role: string;
  content?: unknown;
  prefix?: boolean;
  tool_call_id?: string;
  tool_calls?: unknown[];
};
const sent = () => (lastBody() as { messages: WireMessage[] }).messages;
const roles = () => sent().map((m) => m.role);
const repairs = () =>
  logger
    .warnings()
    .filter((w) => w.obj.event === 'request_order_repaired')
    .map((w) => ({ rule: w.obj.rule, message_index: w.obj.message_index, adapter: w.obj.adapter }));

/** Mistral's own order check: what mistral-common's validator would refuse, as messages. */
function mistralOrderViolations(messages: WireMessage[]): string[] {
  const problems: string[] = [];
  const first = messages.find((m) => m.role !== 'system');
  if (first && first.role !== 'user') {
    problems.push('Conversation must start with a user message or system message');
  }
  messages.forEach((m, i) => {
    if (i > 0 && m.role === 'user' && messages[i - 1]?.role === 'tool') {
      problems.push(`Unexpected role 'user' after role 'tool' at ${i}`);
    }
  });
  const last = messages.at(-1);
  if (last?.role === 'assistant' && last.prefix !== true) {
    problems.push('Expected last role User or Tool (or Assistant with prefix True)');
  }
  return problems;
}

const mistral = (options: Record<string, unknown> = {}) =>
  new MistralAdapter({ api_key: 'mistral-test-key', base_url: server.url, options }, { logger });
const ask = (model: string, messages: Message[], extra: Partial<CanonicalRequestInput> = {}) => ({
  request_id: newRequestId(),
  model,
  max_output_tokens: 256,
  messages,
  tools: [readFile],
  ...extra,
});

/** A tool loop answered, then a user follow-up with no assistant reply in between. */
function followUpAfterTools(model: string, resultContent = [text('# Readme')]): Message[] {
  const id = newToolUseId();
  return [
    user(text('Read README.md')),
    assistant([{ type: 'tool_use', id, name: 'read_file', input: { path: 'README.md' } }], model),
    result(id, resultContent),
    user(text('Actually, summarize it in one line.')),
  ];
}

async function send(adapter: OpenAICompatibleAdapter, model: string, messages: Message[]) {
  server.enqueue(...(fixtures.text ?? []));
  await adapter.complete(ask(model, messages));
  await adapter.close();
}

describe('mistral preset: no user message directly after a tool message', () => {
  it('puts a bridging assistant message between a tool result and the user follow-up, with a WARN', async () => {
    await send(mistral(), LARGE, followUpAfterTools(LARGE));
    expect(roles()).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
    expect(sent()[3]).toEqual({ role: 'assistant', content: REQUEST_ORDER_BRIDGE_TEXT });
    expect(mistralOrderViolations(sent())).toEqual([]);
    expect(repairs()).toEqual([
      { rule: 'no_user_after_tool', message_index: 3, adapter: 'mistral' },
    ]);
  });

  it('bridges before the adapter’s own "Image output of tool call" message too', async () => {
    const image = { type: 'image' as const, source: { kind: 'base64' as const, data: PNG } };
    const history = followUpAfterTools(SMALL, [
      text('Rendered chart.png'),
      { ...image, media_type: 'image/png' },
    ]).slice(0, 3);
    await send(mistral(), SMALL, history);
    const messages = sent();
    expect(roles()).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
    expect(JSON.stringify(messages[4]?.content)).toContain('Image output of tool call');
    expect(mistralOrderViolations(messages)).toEqual([]);
    expect(repairs()).toEqual([
      { rule: 'no_user_after_tool', message_index: 3, adapter: 'mistral' },
    ]);
  });

  it('streams go out repaired the same way', async () => {
    server.enqueue(...(fixtures['text-stream'] ?? []));
    const adapter = mistral();
    for await (const _ of adapter.stream({
      ...ask(LARGE, followUpAfterTools(LARGE)),
      stream: true,
    })) {
      // drain
    }
    await adapter.close();
    expect(mistralOrderViolations(sent())).toEqual([]);
    expect(roles()).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
  });
});

describe('mistral preset: a history ending in an assistant message', () => {
  it('sends that message with prefix: true, with a WARN naming its index (system message counted)', async () => {
    const history = [
      user(text('Finish the sentence: the answer is')),
      assistant([text('The answer is')], LARGE),
    ];
    server.enqueue(...(fixtures.text ?? []));
    const adapter = mistral();
    await adapter.complete(ask(LARGE, history, { system_prompt: 'Be brief.' }));
    await adapter.close();
    expect(roles()).toEqual(['system', 'user', 'assistant']);
    expect(sent()[2]).toEqual({ role: 'assistant', content: 'The answer is', prefix: true });
    expect(mistralOrderViolations(sent())).toEqual([]);
    expect(repairs()).toEqual([
      { rule: 'prefix_last_assistant', message_index: 2, adapter: 'mistral' },
    ]);
  });

  it('leaves prefix off every assistant message that is not last, and makes no repair when none is needed', async () => {
    const history = [
      user(text('Hi')),
      assistant([text('Hello!')], LARGE),
      user(text('How are you?')),
    ];
    await send(mistral(), LARGE, history);
    expect(sent().some((m) => 'prefix' in m)).toBe(false);
    expect(repairs()).toEqual([]);
  });
});

describe('mistral preset: a history whose first message is not a user message', () => {
  // "Conversation must start with a user message or system message": a session seeded with a
  // greeting, or one whose first user message was dropped on the way (blank, or only an image
  // for a model without images), starts with an assistant message on the wire.
  const opening = { role: 'user', content: REQUEST_ORDER_OPENING_TEXT };

  it('puts a user message before a leading assistant message, after the system message, with a WARN', async () => {
    const history = [
      assistant([text('Welcome! Ask me about the repository.')], LARGE),
      user(text('What does README.md say?')),
    ];
    server.enqueue(...(fixtures.text ?? []));
    const adapter = mistral();
    await adapter.complete(ask(LARGE, history, { system_prompt: 'Be brief.' }));
    await adapter.close();
    expect(roles()).toEqual(['system', 'user', 'assistant', 'user']);
    expect(sent()[1]).toEqual(opening);
    expect(mistralOrderViolations(sent())).toEqual([]);
    expect(repairs()).toEqual([{ rule: 'user_first', message_index: 1, adapter: 'mistral' }]);
  });

  it('repairs a history left with one assistant message, which also goes with prefix: true', async () => {
    const history = [assistant([text('The answer is')], LARGE)];
    await send(mistral(), LARGE, history);
    expect(sent()).toEqual([
      opening,
      { role: 'assistant', content: 'The answer is', prefix: true },
    ]);
    expect(mistralOrderViolations(sent())).toEqual([]);
    expect(repairs()).toEqual([
      { rule: 'user_first', message_index: 0, adapter: 'mistral' },
      { rule: 'prefix_last_assistant', message_index: 1, adapter: 'mistral' },
    ]);
  });

  it('repairs a history whose leading user message was dropped (an image only, to a model without images)', async () => {
    const image = { type: 'image' as const, source: { kind: 'base64' as const, data: PNG } };
    const history = [
      user({ ...image, media_type: 'image/png' }),
      ...followUpAfterTools(LARGE).slice(1),
    ];
    await send(mistral(), LARGE, history);
    expect(roles()).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
    expect(sent()[0]).toEqual(opening);
    expect(sent()[1]?.tool_calls).toHaveLength(1);
    expect(mistralOrderViolations(sent())).toEqual([]);
    expect(repairs()).toEqual([
      { rule: 'user_first', message_index: 0, adapter: 'mistral' },
      { rule: 'no_user_after_tool', message_index: 3, adapter: 'mistral' },
    ]);
    expect(logger.warnings().map((w) => w.obj.event)).toContain('block_dropped');
  });

  it('streams go out repaired the same way', async () => {
    server.enqueue(...(fixtures['text-stream'] ?? []));
    const adapter = mistral();
    const history = [assistant([text('Hi, I can read files.')], LARGE), user(text('Read a.'))];
    for await (const _ of adapter.stream({ ...ask(LARGE, history), stream: true })) {
      // drain
    }
    await adapter.close();
    expect(roles()).toEqual(['user', 'assistant', 'user']);
    expect(mistralOrderViolations(sent())).toEqual([]);
  });
});

describe('request_order is preset data', () => {
  it('is not applied by presets whose servers take tool, user (groq, vllm)', async () => {
    const groq = new GroqAdapter({ api_key: 'gsk_test', base_url: server.url }, { logger });
    await send(
      groq,
      'groq:llama-3.3-70b-versatile',
      followUpAfterTools('groq:llama-3.3-70b-versatile'),
    );
    expect(roles()).toEqual(['user', 'assistant', 'tool', 'user']);
    expect(repairs()).toEqual([]);
  });

  it('a config may turn the rules off for Mistral, or on for a vLLM serving a Mistral model', async () => {
    await send(mistral({ request_order: [] }), LARGE, followUpAfterTools(LARGE));
    expect(roles()).toEqual(['user', 'assistant', 'tool', 'user']);

    const model = 'vllm:mistralai/Mistral-Small-3.2-24B-Instruct-2506';
    const vllm = new VllmAdapter(
      {
        base_url: server.url,
        options: {
          request_order: ['no_user_after_tool', 'prefix_last_assistant'],
          models: { 'mistralai/Mistral-Small-3.2-24B-Instruct-2506': { supports_tools: true } },
        },
      },
      { logger },
    );
    await send(vllm, model, followUpAfterTools(model));
    expect(mistralOrderViolations(sent())).toEqual([]);
    expect(repairs().at(-1)).toEqual({
      rule: 'no_user_after_tool',
      message_index: 3,
      adapter: 'vllm',
    });
  });

  it('refuses a rule it does not know', () => {
    expect(
      () =>
        new MistralAdapter({
          api_key: 'k',
          options: { request_order: ['alternate_roles' as never] },
        }),
    ).toThrow(AdapterOptionError);
    expect(
      () => new MistralAdapter({ options: { request_order: ['alternate_roles' as never] } }),
    ).toThrow(/options\.request_order\[0\]/);
  });
});
