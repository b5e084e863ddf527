import { PNG_1PX_BASE64 } from '@yourtool/testkit';
import { describe, expect, it } from 'vitest';
import type { ToolHandler } from '../src/index.js';
import { fixturesOf, loopbackForFile, requireFixture } from './helpers.js';
import { readFileTool, reopen, sqliteHarness } from './sqlite-harness.js';

const fixtures = fixturesOf('anthropic');
const loopback = loopbackForFile();

/** The tool_result block the model's second request carried (Anthropic Messages wire form). */
interface WireToolResult {
  type: string;
  tool_use_id: string;
  content: Array<{ type: string; text?: string }>;
  is_error?: boolean;
}

/**
 * One tool loop on Claude through the Anthropic SDK on a real SQLite store: the model calls
 * `read_file`, whose handler returns what `run` does, then answers. Returns what the store
 * holds for the tool's result (read through a second connection), what the model's second
 * request carried, and the WARNs.
 */
async function toolLoop(run: ToolHandler['run']) {
  const { server } = loopback;
  server.reset();
  const h = await sqliteHarness(server, [readFileTool(run)]);
  server.enqueue(
    ...requireFixture(fixtures, 'tool-call-stream'),
    ...requireFixture(fixtures, 'text-stream'),
  );
  const session = await h.manager.createSession({ workspace_path: '/work/values' });
  const result = await h.manager.sendAndWait(session.id, 'Read README.md');
  const { messages, errors } = await (await reopen(h)).loadMessages(session.id);
  expect(errors).toEqual([]);
  expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  const stored = messages[2]?.content[0];
  if (stored?.type !== 'tool_result') throw new Error('no stored tool result');
  expect(server.requests).toHaveLength(2);
  const body = server.requests[1]?.body as { messages: Array<{ content: WireToolResult[] }> };
  const wire = body.messages[2]?.content[0];
  return { result, stored, wire, warnings: h.logger.warnings() };
}

describe('a tool returning a JSON value', () => {
  it('is stored as its JSON text and the next request carries that text', async () => {
    const value = {
      items: [
        { name: 'README.md', size: 42 },
        { name: 'a b.txt', size: 0 },
      ],
      total: 2,
      truncated: false,
      owner: null,
      read_at: new Date('2026-11-27T12:00:00.000Z'),
    };
    const { result, stored, wire, warnings } = await toolLoop(() => value);
    const json = JSON.stringify(value);
    expect(json).toContain('"read_at":"2026-11-27T12:00:00.000Z"');
    expect(result.end).toBe('end_turn');
    expect(stored).toMatchObject({ content: [{ type: 'text', text: json }], is_error: false });
    expect(wire).toMatchObject({ type: 'tool_result', content: [{ type: 'text', text: json }] });
    expect(wire?.is_error ?? false).toBe(false);
    expect(warnings).toEqual([]);

    // strings and text and image blocks are kept as they are
    const blocks = [
      { type: 'text' as const, text: 'a 1px image:' },
      {
        type: 'image' as const,
        source: { kind: 'base64' as const, data: PNG_1PX_BASE64 },
        media_type: 'image/png',
      },
    ];
    const asBlocks = await toolLoop(() => blocks);
    expect(asBlocks.stored.content).toEqual(blocks);
    expect(asBlocks.wire?.content.map((b) => b.type)).toEqual(['text', 'image']);
    const asText = await toolLoop(() => '{"not":"parsed"}');
    expect(asText.stored.content).toEqual([{ type: 'text', text: '{"not":"parsed"}' }]);
    expect(asText.wire?.content).toEqual([{ type: 'text', text: '{"not":"parsed"}' }]);
  });

  it.each([
    ['an array', [1, 'two', { three: 3 }], '[1,"two",{"three":3}]'],
    ['an empty array', [], '[]'],
    ['a number', 42.5, '42.5'],
    ['a boolean', true, 'true'],
    ['null', null, 'null'],
  ])('sends %s as JSON text', async (_what, value, json) => {
    const { stored, wire } = await toolLoop(async () => value);
    expect(stored).toMatchObject({ content: [{ type: 'text', text: json }], is_error: false });
    expect(wire?.content).toEqual([{ type: 'text', text: json }]);
  });

  it('stores a handler that returns nothing as an empty result, not an error', async () => {
    const { stored, warnings } = await toolLoop(async () => undefined);
    expect(stored).toMatchObject({ content: [{ type: 'text', text: '' }], is_error: false });
    expect(warnings).toEqual([]);
  });
});

describe('a tool returning a value that cannot be stored', () => {
  const circular: Record<string, unknown> = { name: 'loop', children: [] };
  (circular.children as unknown[]).push({ parent: circular });
  const items = (size: unknown) => ({
    items: [{ size: 1 }, { size: 2 }, { size: 3 }, { size }],
  });
  // 101 arrays inside one another: one level past core's JSON depth limit (decision 0061)
  let deep: unknown = [];
  for (let i = 0; i < 100; i++) deep = [deep];

  it.each([
    ['a BigInt', items(10n), 'a BigInt (10n)', '$.items[3].size'],
    ['a circular reference', circular, 'a circular reference (back to $)', '$.children[0].parent'],
    ['a function', { name: 'x', run: () => 1 }, 'a function', '$.run'],
    ['a symbol', items(Symbol('kb')), 'a symbol (Symbol(kb))', '$.items[3].size'],
    ['undefined inside', { 'file name': undefined }, 'undefined', '$["file name"]'],
    ['NaN', items(Number.NaN), 'the number NaN', '$.items[3].size'],
    ['a Map', { index: new Map([['a', 1]]) }, 'a Map', '$.index'],
    [
      'nesting past the depth limit',
      deep,
      'nesting deeper than 100 levels',
      `$${'[0]'.repeat(100)}`,
    ],
    [
      'a hole in an array',
      { sizes: Object.assign(new Array<number>(3), { 0: 1, 2: 3 }) },
      'undefined',
      '$.sizes[1]',
    ],
    [
      'a malformed image block',
      [{ type: 'image', source: { kind: 'base64', data: '' }, media_type: 'image/png' }],
      'not a valid image block',
      '$[0].source.data',
    ],
  ])(
    'refuses %s, naming the reason and the path, and the model sees why',
    async (_what, value, reason, path) => {
      const { result, stored, wire, warnings } = await toolLoop(() => value as object);
      const text = stored.content[0]?.type === 'text' ? stored.content[0].text : '';
      const prefix = `tool "read_file" returned a value that cannot be stored: ${reason}`;
      expect(text.slice(0, prefix.length)).toBe(prefix);
      expect(text.slice(-` at ${path}`.length)).toBe(` at ${path}`);
      expect(stored.is_error).toBe(true);
      expect(wire).toMatchObject({
        type: 'tool_result',
        is_error: true,
        content: [{ type: 'text', text }],
      });
      expect(result.end).toBe('end_turn');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({
        obj: { event: 'tool_output_refused', tool: 'read_file', path },
        msg: text,
      });
    },
  );
});
