import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type LoopbackServer,
  type ScriptedResponse,
  startLoopbackServer,
} from '@yourtool/conformance';
import {
  type BusEvent,
  createEventBus,
  createMemoryLogger,
  type Message,
  sumDecimalStrings,
} from '@yourtool/core';
import { OpenAIAdapter } from '@yourtool/openai';
import { defaultPriceTable } from '@yourtool/pricing';
import { ModelRegistry, parseRoutingConfig, Router } from '@yourtool/router';
import { openStore, type SqlSessionStore } from '@yourtool/store';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isInvalidReplyError, SessionManager, ToolRegistry } from '../src/index.js';
import { collect, fixturesOf, requireFixture } from './helpers.js';

/**
 * Every model reply ends as a finished row (issue 23, item 1): a reply that breaks a canonical
 * invariant is stored at `status: error` with its usage, cost, stop reason and the rule broken,
 * the turn ends with a typed error carrying the kept text, and the next turn goes on without
 * replaying it. The real OpenAI adapter and SDK stream from the loopback server; the session
 * lives in a real SQLite file.
 */

const openai = fixturesOf('openai');

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const stores: SqlSessionStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

/** One Chat Completions stream chunk, as GPT-5 sends them. */
const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
  id: 'chatcmpl-Invalid0001',
  object: 'chat.completion.chunk',
  created: 1763800100,
  model: 'gpt-5-2025-08-07',
  service_tier: 'default',
  system_fingerprint: null,
  choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  usage: null,
});

/** A Chat Completions SSE reply: the chunks, then the usage chunk and `[DONE]`. */
function sse(
  chunks: ReturnType<typeof chunk>[],
  usage: { prompt: number; completion: number; reasoning: number },
): ScriptedResponse {
  const usageChunk = {
    ...chunk({}),
    choices: [],
    usage: {
      prompt_tokens: usage.prompt,
      completion_tokens: usage.completion,
      total_tokens: usage.prompt + usage.completion,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: usage.reasoning, audio_tokens: 0 },
    },
  };
  return {
    type: 'stream',
    status: 200,
    headers: {},
    contentType: 'text/event-stream',
    chunks: [...chunks, usageChunk]
      .map((c) => `data: ${JSON.stringify(c)}\n\n`)
      .concat('data: [DONE]\n\n'),
  };
}

const toolCall = (name: string, args: string) =>
  chunk({
    tool_calls: [
      { index: 0, id: 'call_Invalid01', type: 'function', function: { name, arguments: args } },
    ],
  });

function nested(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

const CASES = [
  {
    name: 'an empty reply cut at max_tokens (GPT-5 spent the limit reasoning)',
    reply: sse([chunk({ role: 'assistant', content: '', refusal: null }), chunk({}, 'length')], {
      prompt: 40,
      completion: 4096,
      reasoning: 4096,
    }),
    stop_reason: 'max_tokens',
    rule: 'content-non-empty',
    text: '',
    dropped: [] as string[],
  },
  {
    name: 'a tool named functions.read_file',
    reply: sse(
      [
        chunk({ role: 'assistant', content: 'Let me look.' }),
        toolCall('functions.read_file', '{"path":"README.md"}'),
        chunk({}, 'tool_calls'),
      ],
      { prompt: 380, completion: 21, reasoning: 0 },
    ),
    stop_reason: 'tool_use',
    rule: 'tool-name-format',
    text: 'Let me look.',
    dropped: ['tool_use'],
  },
  {
    name: 'a tool input nested 300 deep',
    reply: sse(
      [
        chunk({ role: 'assistant', content: 'Deep.' }),
        toolCall('read_file', nested(300)),
        chunk({}, 'tool_calls'),
      ],
      { prompt: 380, completion: 900, reasoning: 0 },
    ),
    stop_reason: 'tool_use',
    rule: 'json-depth',
    text: 'Deep.',
    dropped: ['tool_use'],
  },
] as const;

async function setUp() {
  const path = join(mkdtempSync(join(tmpdir(), 'session-invalid-')), 'sessions.db');
  const store = await openStore(`sqlite:${path}`);
  stores.push(store);
  const registry = ModelRegistry.fromYaml(
    `
adapters:
  openai: { type: openai, api_key: sk-invalid-replies-0000, base_url: ${server.url}, max_retries: 0 }
models:
  openai:gpt-5: { adapter: openai, wire_name: gpt-5, aliases: [gpt5] }
`,
    { factories: { openai: (config, runtime) => new OpenAIAdapter(config, runtime) } },
  );
  const router = new Router({ registry, config: parseRoutingConfig('global_default: gpt5') });
  const bus = createEventBus();
  const busEvents: BusEvent[] = [];
  bus.onAny((e) => busEvents.push(e));
  const logger = createMemoryLogger();
  let runs = 0;
  const tools = new ToolRegistry([
    {
      definition: {
        name: 'read_file',
        description: 'Read a UTF-8 text file from the workspace.',
        input_schema: { type: 'object', properties: {} },
        side_effects: 'read',
      },
      run: () => {
        runs++;
        return '# Project Foo';
      },
    },
  ]);
  const manager = new SessionManager({
    store,
    router,
    pricing: defaultPriceTable(),
    tools,
    bus,
    logger,
  });
  return { store, manager, busEvents, logger, runs: () => runs };
}

type WireBody = { messages: Array<{ role: string; content: unknown; tool_calls?: unknown }> };

describe('a reply that breaks an invariant is stored whole as far as it can be (issue 23.1)', () => {
  for (const c of CASES) {
    it(`${c.name}: a finished error row with usage and cost, a typed error, and the next turn works`, async () => {
      const h = await setUp();
      const session = await h.manager.createSession({ workspace_path: '/w' });
      server.enqueue(c.reply);
      const { events, error } = await collect(h.manager.send(session.id, 'Go.'));

      expect(
        isInvalidReplyError(error),
        `the turn ends with InvalidReplyError, got ${String(error)}`,
      ).toBe(true);
      if (!isInvalidReplyError(error)) return;
      expect(error.stop_reason).toBe(c.stop_reason);
      expect(error.text, 'the error carries the kept text').toBe(c.text);
      expect(error.violations.map((v) => v.rule)).toContain(c.rule);
      const done = events.find((e) => e.type === 'session.turn_complete');
      expect(done?.type === 'session.turn_complete' && done.result.end).toBe('error');
      expect(done?.type === 'session.turn_complete' && done.result.text).toBe(c.text);
      expect(h.runs(), 'no tool of an invalid reply runs').toBe(0);

      const rows = (await h.store.loadMessages(session.id)).messages;
      expect(
        rows.map((m) => m.metadata.status),
        'no row is left partial',
      ).toEqual(['complete', 'error']);
      const reply = rows[1] as Message;
      expect(reply.id).toBe(error.message_id);
      expect(reply.metadata.stop_reason).toBe(c.stop_reason);
      expect(reply.metadata.error?.rule).toBe(c.rule);
      expect((reply.metadata.error?.dropped ?? []).map((d) => d.type)).toEqual(c.dropped);
      expect(reply.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('')).toBe(
        c.text,
      );
      expect(reply.metadata.usage?.cost_usd, 'the billed call is priced').toMatch(/^\d+\.\d+$/);
      expect(Number(reply.metadata.usage?.cost_usd)).toBeGreaterThan(0);
      expect(
        h.busEvents.filter((e) => e.type === 'llm.call_completed'),
        'llm.call_completed for the billed call',
      ).toHaveLength(1);
      expect(h.logger.warnings().map((w) => w.obj.event)).toContain('assistant_reply_invalid');

      // the next turn works and does not replay the invalid reply
      server.enqueue(...requireFixture(openai, 'text-stream'));
      const next = await h.manager.sendAndWait(session.id, 'Try again.');
      expect(next.end).toBe('end_turn');
      const sent = server.requests.at(-1)?.body as WireBody;
      expect(sent.messages.map((m) => m.role)).toEqual(['user', 'user']);
      expect(JSON.stringify(sent)).not.toContain('functions.read_file');
      expect(h.logger.warnings().map((w) => w.obj)).toContainEqual(
        expect.objectContaining({
          event: 'history_repaired',
          kind: 'error_message_skipped',
          message_id: error.message_id,
        }),
      );

      // the session's cost is the sum of every billed call
      const all = (await h.store.loadMessages(session.id)).messages;
      const billed = all.flatMap((m) =>
        m.metadata.usage?.cost_usd ? [m.metadata.usage.cost_usd] : [],
      );
      expect(billed).toHaveLength(2);
      expect((await h.store.sessionStats(session.id)).total_cost_usd).toBe(
        sumDecimalStrings(billed),
      );
      expect(next.session_cost_usd).toBe(sumDecimalStrings(billed));
    });
  }
});
