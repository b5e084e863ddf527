import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AnthropicAdapter } from '@yourtool/anthropic';
import {
  createMemoryLogger,
  type Message,
  ToolDefinitionError,
  type ToolResultContentBlock,
} from '@yourtool/core';
import { MemorySessionStore } from '@yourtool/core/memory-store';
import { defaultPriceTable } from '@yourtool/pricing';
import { ModelRegistry, parseRoutingConfig, Router } from '@yourtool/router';
import { openStore, type SqlSessionStore } from '@yourtool/store';
import { PNG_1PX_BASE64 } from '@yourtool/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import {
  defineTool,
  InvalidManagerOptionError,
  SessionManager,
  type SessionManagerOptions,
  ToolRegistry,
} from '../src/index.js';
import { fixturesOf, loopbackForFile, requireFixture, unavailable } from './helpers.js';

// What a model receives of a tool result is bounded per request and per target model; the
// store keeps the result whole (issue 36, decision 0155).

const anthropic = fixturesOf('anthropic');
const loopback = loopbackForFile();

const registryYaml = (url: string) => `
adapters:
  anthropic: { type: anthropic, api_key: sk-ant-bound-test-000000, base_url: ${url}, max_retries: 0 }
models:
  anthropic:claude-sonnet-4-6: { adapter: anthropic, wire_name: claude-sonnet-4-6, aliases: [sonnet] }
  anthropic:claude-haiku-4-5-small:
    adapter: anthropic
    wire_name: claude-haiku-4-5
    aliases: [smallhaiku]
    capabilities: { max_context_tokens: 40000 }
`;

const stores: SqlSessionStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

/** A manager with one `read_file` tool returning `output`, on a SQLite file. */
async function harness(
  output: string | ToolResultContentBlock[],
  extra: Partial<SessionManagerOptions> = {},
  routing = 'global_default: sonnet',
) {
  const store = await openStore(`sqlite:${join(mkdtempSync(join(tmpdir(), 'bound-')), 's.db')}`);
  stores.push(store);
  const logger = createMemoryLogger();
  const registry = ModelRegistry.fromYaml(registryYaml(loopback.server.url), {
    factories: { anthropic: (config, runtime) => new AnthropicAdapter(config, runtime) },
    logger,
  });
  const manager = new SessionManager({
    store,
    router: new Router({ registry, config: parseRoutingConfig(routing) }),
    pricing: defaultPriceTable(),
    logger,
    tools: new ToolRegistry([
      {
        definition: {
          name: 'read_file',
          description: 'Read a file of the workspace.',
          input_schema: {
            type: 'object',
            properties: { path: { type: 'string' } },
            required: ['path'],
          },
          side_effects: 'read',
        },
        run: () => output,
      },
    ]),
    ...extra,
  });
  return { manager, store, logger };
}

interface AnthropicBody {
  messages: Array<{
    role: string;
    content: Array<{ type: string; content?: Array<{ type: string; text?: string }> }>;
  }>;
}
/** The content of the tool result in a recorded Messages API request. */
function sentResult(index: number) {
  const body = loopback.server.requests[index]?.body as AnthropicBody;
  const block = body.messages.flatMap((m) => m.content).find((b) => b.type === 'tool_result');
  return block?.content ?? [];
}
const sentText = (index: number) =>
  sentResult(index)
    .map((b) => b.text ?? '')
    .join('');

/** The stored tool result of a session. */
async function storedResult(store: SqlSessionStore, sessionId: string) {
  const tool = (await store.loadMessages(sessionId)).messages.find(
    (m) => m.role === 'tool',
  ) as Message;
  const block = tool.content[0];
  if (block?.type !== 'tool_result') throw new Error('no stored tool result');
  return block;
}

const words = (count: number) => Array.from({ length: count }, (_, i) => `word${i % 10}`).join(' ');

describe('the bound on a tool result (decision 0155)', () => {
  it("a result over its tool's limit: text cut and images left out, one marker saying both; the stored row keeps all", async () => {
    const image: ToolResultContentBlock = {
      type: 'image',
      source: { kind: 'base64', data: PNG_1PX_BASE64 },
      media_type: 'image/png',
    };
    const text = words(3000);
    const { manager, store, logger } = await harness([{ type: 'text', text }, image, image], {
      toolResults: { perTool: { read_file: 1000 } },
    });
    const session = await manager.createSession({ workspace_path: '/w' });
    loopback.server.enqueue(
      ...requireFixture(anthropic, 'tool-call-stream'),
      ...requireFixture(anthropic, 'text-stream'),
    );
    const result = await manager.sendAndWait(session.id, 'Read it.');
    expect(result.end).toBe('end_turn');

    const sent = sentResult(1);
    // the text's start, the marker, the text's end; the images after it left out
    expect(sent.map((b) => b.type)).toEqual(['text', 'text', 'text']);
    expect(text.startsWith(sent[0]?.text ?? 'x')).toBe(true);
    expect(text.endsWith(sent[2]?.text ?? 'x')).toBe(true);
    expect((sent[0]?.text ?? '').length + (sent[2]?.text ?? '').length).toBeLessThan(text.length);
    expect(sent[1]?.text).toMatch(
      /^\[… [\d,]+ characters and 2 images \(about [\d,]+ tokens\) of this tool result were left out: it exceeded the 1,000-token limit for one result\]$/,
    );
    const stored = await storedResult(store, session.id);
    expect(stored.content).toEqual([{ type: 'text', text }, image, image]);
    const [warned] = logger.warnings().filter((w) => w.obj.event === 'tool_result_truncated');
    expect(warned?.obj).toMatchObject({
      tool_name: 'read_file',
      limit_tokens: 1000,
      left_out_images: 2,
    });
  });

  it('a text of emoji without line breaks is cut between characters, never inside one', async () => {
    const text = `${'🚀é'.repeat(20_000)}`;
    const { manager } = await harness(text, { toolResults: { maxTokens: 1000 } });
    const session = await manager.createSession({ workspace_path: '/w' });
    loopback.server.enqueue(
      ...requireFixture(anthropic, 'tool-call-stream'),
      ...requireFixture(anthropic, 'text-stream'),
    );
    await manager.sendAndWait(session.id, 'Read it.');
    const [start, marker, end] = sentResult(1).map((b) => b.text ?? '');
    const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
    for (const piece of [start, end]) {
      expect(piece?.length).toBeGreaterThan(0);
      expect(piece).not.toMatch(lone);
    }
    expect(text.startsWith(start ?? 'x') && text.endsWith(end ?? 'x')).toBe(true);
    const left = Number(/\[… ([\d,]+) characters/.exec(marker ?? '')?.[1]?.replaceAll(',', ''));
    expect((start?.length ?? 0) + left + (end?.length ?? 0)).toBe(text.length);
  });

  it("a fallback to a model with a smaller window gets its own projection: the results' share of that window", async () => {
    const text = words(60_000);
    const { manager, store, logger } = await harness(
      text,
      { toolResults: { maxTokens: 30_000 } },
      'global_default: sonnet\nfallbacks:\n  sonnet: [smallhaiku]',
    );
    const session = await manager.createSession({ workspace_path: '/w' });
    loopback.server.enqueue(
      ...requireFixture(anthropic, 'tool-call-stream'),
      unavailable(),
      ...requireFixture(anthropic, 'text-stream'),
    );
    const result = await manager.sendAndWait(session.id, 'Read it.');
    expect(result.end).toBe('end_turn');
    expect(result.messages.at(-1)?.metadata.model).toBe('anthropic:claude-haiku-4-5-small');

    // Sonnet (1M window) got 30,000 tokens of it; the 40,000-token Haiku half of its window
    const forSonnet = sentText(1);
    const forHaiku = sentText(2);
    expect(forSonnet).toMatch(/it exceeded the 30,000-token limit for one result\]/);
    expect(forHaiku).toMatch(
      /the tool results of one request may take 20,000 tokens together \(50% of anthropic:claude-haiku-4-5-small's 40,000-token context window\), newer results first\]/,
    );
    expect(forHaiku.length).toBeLessThan(forSonnet.length);
    expect(forSonnet.length).toBeLessThan(text.length);
    const reasons = logger
      .warnings()
      .filter((w) => w.obj.event === 'tool_result_truncated')
      .map((w) => [w.obj.model, w.obj.reason]);
    expect(reasons).toEqual([
      ['anthropic:claude-sonnet-4-6', 'result_limit'],
      ['anthropic:claude-haiku-4-5-small', 'context_share'],
    ]);
    // the next turn on Sonnet gets Sonnet's projection again, not Haiku's
    loopback.server.enqueue(...requireFixture(anthropic, 'text-stream'));
    await manager.sendAndWait(session.id, 'Thanks.');
    expect(sentText(3)).toBe(forSonnet);
    expect((await storedResult(store, session.id)).content).toEqual([{ type: 'text', text }]);
  });

  it('a /model swap after a big tool result is checked against what that model would receive', async () => {
    const text = words(60_000);
    const { manager, store } = await harness(text);
    const session = await manager.createSession({ workspace_path: '/w' });
    loopback.server.enqueue(
      ...requireFixture(anthropic, 'tool-call-stream'),
      ...requireFixture(anthropic, 'text-stream'),
    );
    await manager.sendAndWait(session.id, 'Read it.');
    // about 120,000 tokens stored; the 40,000-token Haiku receives 16,000 of them
    const swapped = await manager.swapModel(session.id, 'smallhaiku');
    expect(swapped.active_model).toBe('anthropic:claude-haiku-4-5-small');
    loopback.server.enqueue(...requireFixture(anthropic, 'text-stream'));
    const next = await manager.sendAndWait(session.id, 'Go on.');
    expect(next.messages.at(-1)?.metadata.model).toBe('anthropic:claude-haiku-4-5-small');
    expect(sentText(2)).toMatch(/it exceeded the 16,000-token limit for one result\]/);
    expect((await storedResult(store, session.id)).content).toEqual([{ type: 'text', text }]);
  });

  it("a tool's own max_result_tokens (defineTool, a handler) bounds its results; the manager's perTool wins; a bad value is refused when defined", async () => {
    const spec = {
      name: 'read_file',
      description: 'Read a file of the workspace.',
      side_effects: 'read',
      input_schema: { type: 'object', properties: { path: { type: 'string' } } },
      run: () => words(3000),
    } as const;
    const own = defineTool({ ...spec, max_result_tokens: 1000 });
    for (const [extra, limit] of [
      [{}, '1,000'],
      [{ toolResults: { perTool: { read_file: 2000 } } }, '2,000'],
    ] as const) {
      const { manager } = await harness('unused', { ...extra, tools: new ToolRegistry([own]) });
      const session = await manager.createSession({ workspace_path: '/w' });
      loopback.server.reset();
      loopback.server.enqueue(
        ...requireFixture(anthropic, 'tool-call-stream'),
        ...requireFixture(anthropic, 'text-stream'),
      );
      await manager.sendAndWait(session.id, 'Read it.');
      expect(sentText(1)).toMatch(
        new RegExp(`exceeded the ${limit}-token limit for one result\\]`),
      );
    }
    expect(() => defineTool({ ...spec, max_result_tokens: 0 })).toThrow(
      'tool "read_file" is invalid: max_result_tokens: must be a whole number of tokens, 1 or more (got 0)',
    );
    expect(
      () => new ToolRegistry([{ definition: spec, run: spec.run, max_result_tokens: 1.5 }]),
    ).toThrow(ToolDefinitionError);
  });

  it.each([
    ['toolResults', 16000, 'toolResults must be an object'],
    [
      'toolResults.maxTokens',
      { maxTokens: 0 },
      'toolResults.maxTokens must be a whole number of tokens, 1 or more (got 0)',
    ],
    ['toolResults.maxShareOfContext', { maxShareOfContext: 1.5 }, 'above 0 and at most 1, got 1.5'],
    [
      'toolResults.perTool',
      { perTool: { read_file: -1 } },
      'toolResults.perTool.read_file must be a whole number',
    ],
    ['toolResults.maxToken', { maxToken: 100 }, 'did you mean "toolResults.maxTokens"?'],
    ['historyRecovery', 'drop', "historyRecovery must be 'leave_out_oldest_turns' or 'off'"],
  ])('%s: %j is refused naming the field', (field, value, text) => {
    const key = field.startsWith('toolResults') ? 'toolResults' : 'historyRecovery';
    const registry = ModelRegistry.fromYaml(registryYaml('http://127.0.0.1:9'), {
      factories: { anthropic: (config, runtime) => new AnthropicAdapter(config, runtime) },
    });
    const build = () =>
      new SessionManager({
        store: new MemorySessionStore(),
        router: new Router({ registry, config: parseRoutingConfig('global_default: sonnet') }),
        pricing: defaultPriceTable(),
        [key]: value,
      } as SessionManagerOptions);
    expect(build).toThrow(InvalidManagerOptionError);
    expect(build).toThrow(text);
    try {
      build();
    } catch (error) {
      expect((error as InvalidManagerOptionError).option).toBe(
        field === 'toolResults.perTool' ? 'toolResults.perTool.read_file' : field,
      );
    }
  });
});
