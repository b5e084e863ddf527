import { fileURLToPath } from 'node:url';
import {
  type LoopbackServer,
  loadFixtureDirectory,
  replayKit,
  startLoopbackServer,
} from '@yourtool/conformance';
import {
  conformsToToolIdRules,
  createMemoryLogger,
  type MemoryLogger,
  type Message,
  OPENAI_TOOL_ID_RULES,
  ToolIdMap,
  type ToolIdRules,
} from '@yourtool/core';
import { fitsToolNameRules, STRICT_TOOL_NAME_RULES, wireToolName } from '@yourtool/core/adapter';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { REQUEST_ORDER_BRIDGE_TEXT } from '../src/codec.js';
import {
  DeepSeekAdapter,
  GroqAdapter,
  MISTRAL_TOOL_ID_PATTERN,
  MistralAdapter,
  type OpenAICompatibleAdapter,
} from '../src/index.js';
import {
  DEEPSEEK,
  MCP_TOOL,
  mixedHistory,
  READ_FILE,
  SECRETS,
  SESSION,
} from './replay-histories.js';

/**
 * Cross-provider replay to openai-compatible targets (issue 24, "Done means"): one history made
 * of Claude (signed thinking), GPT-5 Responses (encrypted reasoning), Gemini 3 (thought
 * signatures, an MCP-style tool name) and DeepSeek reasoner turns, with a user message right
 * after a tool result and a tool result holding an image, replayed to Mistral, DeepSeek reasoner
 * and Groq through the real SDK. Each request body is checked against that provider's rules.
 */

const fixtures = (dir: string) =>
  loadFixtureDirectory(fileURLToPath(new URL(dir, import.meta.url)));
const mistralFixtures = fixtures('./fixtures-mistral');
const vllmFixtures = fixtures('./fixtures-vllm');

const MISTRAL = 'mistral:mistral-small-latest';
const GROQ = 'groq:openai/gpt-oss-120b';
const MISTRAL_RULES: ToolIdRules = { pattern: new RegExp(MISTRAL_TOOL_ID_PATTERN), maxLength: 9 };

type WireMessage = {
  role: string;
  content?: unknown;
  prefix?: boolean;
  tool_call_id?: string;
  tool_calls?: Array<{ id: string; function: { name: string } }>;
  reasoning?: unknown;
  reasoning_content?: unknown;
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

const kit = replayKit(SESSION, { tools: [READ_FILE] });
const sent = () => (lastBody() as { messages: WireMessage[] }).messages;
const warned = (event: string) => logger.warnings().filter((w) => w.obj.event === event);

type Target = new (
  config: { api_key: string; base_url: string },
  runtime: { logger: MemoryLogger },
) => OpenAICompatibleAdapter;

/** Replays `history` to `model` on a fresh `Target` (a text reply scripted): the wire messages. */
async function replay(
  Target: Target,
  model: string,
  history: Message[],
  map: ToolIdMap,
): Promise<WireMessage[]> {
  logger = createMemoryLogger();
  const target = new Target({ api_key: 'replay-target-key', base_url: server.url }, { logger });
  server.enqueue(...((target.name === 'mistral' ? mistralFixtures : vllmFixtures).text ?? []));
  await kit.call(target, model, history, map);
  await target.close();
  return sent();
}

/** What no provider may receive: another provider's signed reasoning, or its text. */
function expectNoForeignReasoning(messages: WireMessage[], keep: string[] = []): void {
  const json = JSON.stringify(messages);
  for (const [name, secret] of Object.entries(SECRETS)) {
    if (keep.includes(secret)) continue;
    expect(json, `${name} must not reach this provider`).not.toContain(secret);
  }
}

/** Every tool call id fits `rules`, ids are distinct, and each result answers a call before it. */
function expectToolIdsFit(messages: WireMessage[], rules: ToolIdRules): void {
  const calls = messages.flatMap((m) => (m.tool_calls ?? []).map((c) => c.id));
  const results = messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id ?? '');
  expect(calls).toHaveLength(4);
  for (const id of [...calls, ...results]) {
    expect(conformsToToolIdRules(id, rules), `tool id "${id}"`).toBe(true);
  }
  expect(new Set(calls).size).toBe(calls.length);
  expect(results).toEqual(calls);
}

/** Every tool name on the wire fits the strict rule; the MCP tool goes under its derived name. */
function expectToolNamesFit(messages: WireMessage[]): void {
  const names = messages.flatMap((m) => (m.tool_calls ?? []).map((c) => c.function.name));
  for (const name of names) expect(fitsToolNameRules(name, STRICT_TOOL_NAME_RULES)).toBe(true);
  expect(names).toEqual(['read_file', 'read_file', wireToolName(MCP_TOOL), 'read_file']);
  expect(warned('tool_name_mapped').map((w) => w.obj.tool_name)).toEqual([MCP_TOOL]);
}

describe('replayed to Mistral', () => {
  it('never sends a user message right after a tool message, and fits ids, names and reasoning', async () => {
    const map = new ToolIdMap();
    const history = await mixedHistory(server, kit, map, createMemoryLogger());
    const messages = await replay(MistralAdapter, MISTRAL, history, map);
    const roles = messages.map((m) => m.role);
    roles.forEach((role, i) => {
      if (i > 0 && role === 'user') {
        expect(roles[i - 1], `message ${i}: ${roles.join(', ')}`).not.toBe('tool');
      }
    });
    // before the follow-up after Claude's result, the image message after GPT-5's result and
    // the last user message after DeepSeek's result
    const bridges = messages.flatMap((m, i) =>
      m.role === 'assistant' && m.content === REQUEST_ORDER_BRIDGE_TEXT ? [i] : [],
    );
    expect(bridges).toHaveLength(3);
    expect(warned('request_order_repaired').map((w) => [w.obj.rule, w.obj.message_index])).toEqual(
      bridges.map((i) => ['no_user_after_tool', i]),
    );
    expect(JSON.stringify(messages[(bridges[1] ?? 0) + 1])).toContain('Image output of tool call');
    expect(messages.at(-1)?.role).toBe('user');
    expect(messages.some((m) => 'prefix' in m)).toBe(false);
    expectToolIdsFit(messages, MISTRAL_RULES);
    expect(JSON.stringify(messages)).not.toMatch(/toolu_|call_CrossReplay|call_00_/);
    expectToolNamesFit(messages);
    expectNoForeignReasoning(messages);
    expect(messages.some((m) => 'reasoning' in m || 'reasoning_content' in m)).toBe(false);
  });

  it('sends a history ending in an assistant message with prefix: true on it alone', async () => {
    const map = new ToolIdMap();
    const history = await mixedHistory(server, kit, map, createMemoryLogger(), true);
    const messages = await replay(MistralAdapter, MISTRAL, history, map);
    expect(messages.at(-1)).toEqual({
      role: 'assistant',
      content: 'In short, the project is a small',
      prefix: true,
    });
    expect(messages.filter((m) => 'prefix' in m)).toHaveLength(1);
    expect(warned('request_order_repaired').at(-1)?.obj).toMatchObject({
      rule: 'prefix_last_assistant',
      message_index: messages.length - 1,
    });
    expectNoForeignReasoning(messages);
  });
});

describe('replayed to DeepSeek reasoner', () => {
  it('carries reasoning_content on every assistant message with tool calls: its own, else ""', async () => {
    const map = new ToolIdMap();
    const history = await mixedHistory(server, kit, map, createMemoryLogger());
    const messages = await replay(DeepSeekAdapter, DEEPSEEK, history, map);
    const withCalls = messages.filter((m) => m.role === 'assistant' && m.tool_calls?.length);
    expect(withCalls.map((m) => m.reasoning_content)).toEqual([
      '',
      '',
      '',
      SECRETS.deepseekReasoning,
    ]);
    expect(warned('reasoning_filled')).toHaveLength(3);
    // its own reasoning goes back; nobody else's
    expectNoForeignReasoning(messages, [SECRETS.deepseekReasoning]);
    expectToolIdsFit(messages, OPENAI_TOOL_ID_RULES);
    // DeepSeek's own call id goes back as it issued it
    expect(messages.flatMap((m) => m.tool_calls ?? []).at(-1)?.id).toBe(
      'call_00_CrossReplayDeepSeek01',
    );
    expectToolNamesFit(messages);
    // DeepSeek takes tool, user: no bridge, no prefix
    expect(messages.some((m) => m.content === REQUEST_ORDER_BRIDGE_TEXT || 'prefix' in m)).toBe(
      false,
    );
  });
});

describe('replayed to Groq', () => {
  it('sends no reasoning at all (Groq takes none back), ids and names within its rules', async () => {
    const map = new ToolIdMap();
    const history = await mixedHistory(server, kit, map, createMemoryLogger());
    const messages = await replay(GroqAdapter, GROQ, history, map);
    expectNoForeignReasoning(messages);
    expect(messages.some((m) => 'reasoning' in m || 'reasoning_content' in m)).toBe(false);
    expectToolIdsFit(messages, OPENAI_TOOL_ID_RULES);
    expectToolNamesFit(messages);
    expect(
      warned('block_dropped')
        .map((w) => w.obj.block_type)
        .sort(),
    ).toEqual(['image', 'redacted_thinking', 'thinking', 'thinking', 'thinking', 'thinking']);
  });
});
