import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { quickParseMessage } from '../src/fast-parse.js';
import { createMemoryLogger, MessageSchema, parseMessage, RoutingModeSchema } from './exports.js';
import { completeAssistantMeta, msg } from './helpers.js';

/**
 * The quick check of stored messages (decision 0104) must never accept what the schema refuses,
 * and what it accepts must equal the schema's output. Random well-formed messages (every block
 * type, usage, routing, unknown metadata fields) and random corruptions of them hold it to that.
 */

const text = fc.record({ type: fc.constant('text'), text: fc.string() });
const image = fc.record({
  type: fc.constant('image'),
  media_type: fc.constantFrom('image/png', 'image/jpeg', 'image/webp'),
  source: fc.record({
    kind: fc.constantFrom('base64', 'url', 'file_ref'),
    data: fc.string({ minLength: 1 }),
  }),
});
const json = fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), fc.jsonValue(), {
  maxKeys: 4,
});
const block = fc.oneof(
  text,
  image,
  fc.record({
    type: fc.constant('tool_use'),
    id: fc.string({ minLength: 1 }),
    name: fc.string({ minLength: 1 }),
    input: json,
  }),
  fc.record({
    type: fc.constant('tool_result'),
    tool_use_id: fc.string({ minLength: 1 }),
    content: fc.array(fc.oneof(text, image), { maxLength: 3 }),
    is_error: fc.boolean(),
  }),
  fc.record(
    { type: fc.constant('thinking'), text: fc.string(), signature: fc.option(fc.string()) },
    { requiredKeys: ['type', 'text'] },
  ),
  fc.record({ type: fc.constant('redacted_thinking'), data: fc.string({ minLength: 1 }) }),
);
const usage = fc.record(
  {
    input_tokens: fc.nat(),
    output_tokens: fc.nat(),
    cached_input_tokens: fc.nat(),
    cache_creation_input_tokens: fc.nat(),
    cost_usd: fc.option(fc.constantFrom('0', '0.000654', '12.5', '-1.25')),
    pricing_version: fc.option(fc.string()),
    latency_ms: fc.nat(),
    estimated: fc.boolean(),
  },
  {
    requiredKeys: [
      'input_tokens',
      'output_tokens',
      'cached_input_tokens',
      'cache_creation_input_tokens',
      'cost_usd',
      'pricing_version',
      'latency_ms',
    ],
  },
);
const routing = fc.record(
  {
    mode: fc.constantFrom('override', 'manual', 'rule', 'pattern', 'delegate', 'default'),
    chosen_model: fc.constant('anthropic:claude-sonnet-4-6'),
    reason: fc.string(),
    rule_name: fc.option(fc.string()),
    confidence: fc.option(fc.double({ min: 0, max: 1, noNaN: true })),
    alternatives_considered: fc.array(fc.string(), { maxLength: 2 }),
  },
  { requiredKeys: ['mode', 'chosen_model', 'reason'] },
);
const metadata = fc.record(
  {
    status: fc.constantFrom('complete', 'partial', 'cancelled', 'error'),
    model: fc.option(fc.string()),
    provider: fc.option(fc.string()),
    routing: fc.option(routing),
    usage: fc.option(usage),
    parent_tool_use_id: fc.option(fc.string()),
    provider_raw: fc.option(json),
    critical: fc.boolean(),
    compaction: json,
  },
  { requiredKeys: ['status'] },
);
const message = fc.record({
  id: fc.string({ minLength: 1, maxLength: 26 }),
  session_id: fc.string({ minLength: 1, maxLength: 12 }),
  role: fc.constantFrom('user', 'assistant', 'system', 'tool'),
  content: fc.array(block, { maxLength: 4 }),
  metadata,
  created_at: fc.constantFrom('2026-11-23T10:00:00.123456Z', '2026-11-23T10:00:00.000000Z'),
  schema_version: fc.integer({ min: 1, max: 3 }),
});

/** A corruption somewhere in the message: a value replaced, a key added or removed. */
const corruption = fc.record({
  path: fc.array(fc.nat({ max: 8 }), { minLength: 1, maxLength: 5 }),
  action: fc.constantFrom('replace', 'add', 'remove'),
  value: fc.oneof(
    fc.constant(null),
    fc.constant(''),
    fc.constant(-1),
    fc.constant(1.5),
    fc.constant('1e3'),
    fc.constant(42),
    fc.constant([]),
    fc.constant({}),
    fc.string(),
  ),
});

function corrupt(
  value: Record<string, unknown>,
  change: { path: number[]; action: 'replace' | 'add' | 'remove'; value: unknown },
) {
  const { path, action, value: replacement } = change;
  let node: unknown = value;
  for (let depth = 0; depth < path.length; depth++) {
    if (typeof node !== 'object' || node === null) return;
    const keys = Object.keys(node);
    if (keys.length === 0) return;
    const key = keys[(path[depth] as number) % keys.length] as string;
    const last = depth === path.length - 1;
    const target = node as Record<string, unknown>;
    if (last) {
      if (action === 'remove') delete target[key];
      else if (action === 'add') target[`${key}_extra`] = replacement;
      else target[key] = replacement;
      return;
    }
    node = target[key];
  }
}

const run = (property: fc.IPropertyWithHooks<never>) => fc.assert(property, { numRuns: 1500 });

describe('the quick check of stored messages (decision 0104)', () => {
  it('accepts well-formed messages, exactly as the schema returns them', () => {
    let accepted = 0;
    let total = 0;
    run(
      fc.property(message, (generated) => {
        total++;
        const given = JSON.parse(JSON.stringify(generated)) as Record<string, unknown>;
        const quick = quickParseMessage(JSON.parse(JSON.stringify(given)));
        const schema = MessageSchema.safeParse(given);
        expect(schema.success).toBe(true);
        if (quick !== null) {
          accepted++;
          expect(quick).toEqual(schema.data);
        }
      }) as unknown as fc.IPropertyWithHooks<never>,
    );
    // the quick path is the one taken: only corner cases go to the schema
    expect(accepted / total).toBeGreaterThan(0.95);
  });

  it('reads a routing record as its schema does, or leaves it to the schema', () => {
    let quickRead = 0;
    run(
      fc.property(routing, corruption, fc.boolean(), (record, change, broken) => {
        const given = JSON.parse(JSON.stringify(record)) as Record<string, unknown>;
        if (broken) corrupt(given, change);
        const base = MessageSchema.parse(
          msg('assistant', [{ type: 'text', text: 'hi' }], completeAssistantMeta()),
        );
        const value = JSON.parse(
          JSON.stringify({ ...base, metadata: { ...base.metadata, routing: given } }),
        );
        const input = JSON.parse(JSON.stringify(value));
        const quick = quickParseMessage(input);
        const schema = MessageSchema.safeParse(value);
        if (quick === null) return;
        // the record itself, not the schema's copy of it: the routing schema was skipped
        if (quick.metadata.routing === input.metadata.routing) quickRead++;
        expect(schema.success).toBe(true);
        expect(quick).toEqual(schema.data);
      }) as unknown as fc.IPropertyWithHooks<never>,
    );
    // most records skip the routing schema (read as they were given)
    expect(quickRead).toBeGreaterThan(100);
  });

  it("reads every one of the schema's routing modes itself, and no other mode", () => {
    // the quick check keeps its own list (it must not load zod); this holds it to the schema's
    const base = MessageSchema.parse(
      msg('assistant', [{ type: 'text', text: 'hi' }], completeAssistantMeta()),
    );
    const withMode = (mode: string) => {
      const routing = {
        mode,
        chosen_model: 'anthropic:claude-sonnet-4-6',
        reason: 'r',
        alternatives_considered: [],
      };
      return JSON.parse(JSON.stringify({ ...base, metadata: { ...base.metadata, routing } }));
    };
    for (const mode of RoutingModeSchema.options) {
      const input = withMode(mode);
      const quick = quickParseMessage(input);
      // read as given: the routing schema was not needed
      expect(quick?.metadata.routing, mode).toBe(input.metadata.routing);
    }
    const stray = withMode('sticky');
    expect(MessageSchema.safeParse(stray).success).toBe(false);
    expect(quickParseMessage(stray)).toBeNull();
  });

  it('never accepts what the schema refuses, and never returns something else', () => {
    run(
      fc.property(message, corruption, (generated, change) => {
        const changed = JSON.parse(JSON.stringify(generated)) as Record<string, unknown>;
        corrupt(changed, change);
        // as stored: what JSON keeps of it
        const given = JSON.parse(JSON.stringify(changed)) as Record<string, unknown>;
        const quick = quickParseMessage(JSON.parse(JSON.stringify(given)));
        if (quick === null) return;
        const schema = MessageSchema.safeParse(given);
        expect(schema.success).toBe(true);
        expect(quick).toEqual(schema.data);
      }) as unknown as fc.IPropertyWithHooks<never>,
    );
  });

  it('every field of a full message, each replaced by every wrong value, added to or removed', () => {
    const full = {
      id: '01JD0000000000000000000009',
      session_id: 'sess_q',
      role: 'assistant',
      content: [
        { type: 'text', text: 'hi' },
        { type: 'thinking', text: 'hmm', signature: 'sig' },
        { type: 'redacted_thinking', data: 'xyz' },
        { type: 'tool_use', id: 'tu_1', name: 'read_file', input: { path: 'a' } },
        {
          type: 'tool_result',
          tool_use_id: 'tu_1',
          content: [
            { type: 'text', text: 'ok' },
            { type: 'image', media_type: 'image/png', source: { kind: 'base64', data: 'AAAA' } },
          ],
          is_error: false,
        },
      ],
      metadata: {
        status: 'complete',
        model: 'anthropic:claude-sonnet-4-6',
        provider: 'anthropic',
        routing: {
          mode: 'default',
          chosen_model: 'anthropic:claude-sonnet-4-6',
          reason: 'default',
          alternatives_considered: [],
        },
        usage: {
          input_tokens: 1,
          output_tokens: 2,
          cached_input_tokens: 0,
          cache_creation_input_tokens: 0,
          cost_usd: '0.001',
          pricing_version: 'v1',
          latency_ms: 5,
          estimated: false,
        },
        parent_tool_use_id: null,
        provider_raw: { anthropic: { id: 'msg_1' } },
        critical: false,
      },
      created_at: '2026-11-23T10:00:00.123456Z',
      schema_version: 1,
    };
    expect(quickParseMessage(JSON.parse(JSON.stringify(full)))).toEqual(MessageSchema.parse(full));
    const paths: string[][] = [];
    const walk = (node: unknown, at: string[]) => {
      if (typeof node !== 'object' || node === null) return;
      for (const key of Object.keys(node)) {
        paths.push([...at, key]);
        walk((node as Record<string, unknown>)[key], [...at, key]);
      }
    };
    walk(full, []);
    const wrong: unknown[] = [null, '', 'x', -1, 0, 1.5, 2 ** 60, true, [], {}, '1e3'];
    let tried = 0;
    for (const path of paths) {
      for (const action of ['replace', 'add', 'remove'] as const) {
        for (const value of action === 'remove' ? [null] : wrong) {
          const given = JSON.parse(JSON.stringify(full)) as Record<string, unknown>;
          let node = given as Record<string, unknown>;
          for (const key of path.slice(0, -1)) node = node[key] as Record<string, unknown>;
          const key = path.at(-1) as string;
          if (action === 'remove') delete node[key];
          else if (action === 'add') node[`${key}_extra`] = value;
          else node[key] = value;
          const stored = JSON.parse(JSON.stringify(given)) as Record<string, unknown>;
          const quick = quickParseMessage(JSON.parse(JSON.stringify(stored)));
          tried++;
          if (quick === null) continue;
          const schema = MessageSchema.safeParse(stored);
          expect(schema.success, `${action} ${path.join('.')} = ${JSON.stringify(value)}`).toBe(
            true,
          );
          expect(quick, `${action} ${path.join('.')}`).toEqual(schema.data);
        }
      }
    }
    expect(tried).toBeGreaterThan(1000);
  });

  it('leaves to the schema what it must fill in, turn or strip', () => {
    const base = {
      id: '01JD0000000000000000000000',
      session_id: 'sess_q',
      role: 'assistant',
      content: [{ type: 'text', text: 'hi' }],
      metadata: { status: 'complete' },
      created_at: '2026-11-23T10:00:00.123456Z',
      schema_version: 1,
    };
    const copy = () => JSON.parse(JSON.stringify(base)) as typeof base & Record<string, unknown>;
    expect(quickParseMessage(copy())).toEqual(base);
    const noStatus = copy();
    noStatus.metadata = {} as typeof base.metadata;
    expect(quickParseMessage(noStatus)).toBeNull(); // default status
    const numberCost = copy();
    (numberCost.metadata as Record<string, unknown>).usage = {
      input_tokens: 1,
      output_tokens: 1,
      cached_input_tokens: 0,
      cache_creation_input_tokens: 0,
      cost_usd: 0.5,
      pricing_version: null,
      latency_ms: 1,
    };
    expect(quickParseMessage(numberCost)).toBeNull(); // number → decimal string
    const extraField = copy();
    extraField.content = [{ type: 'text', text: 'hi', cite: 1 } as never];
    expect(quickParseMessage(extraField)).toBeNull(); // unknown block field stripped
    const noIsError = copy();
    noIsError.content = [{ type: 'tool_result', tool_use_id: 'tu_1', content: [] } as never];
    expect(quickParseMessage(noIsError)).toBeNull(); // is_error default
  });

  it('parseMessage gives the same message and the same warnings either way', () => {
    const stored = {
      id: '01JD0000000000000000000001',
      session_id: 'sess_q',
      role: 'assistant',
      content: [
        { type: 'text', text: 'hello' },
        { type: 'hologram', frames: 3 },
        { type: 'text', text: 'there', future: true },
      ],
      metadata: { status: 'complete', model: 'anthropic:claude-sonnet-4-6', mood: 'curious' },
      created_at: '2026-11-23T10:00:00.123456Z',
      schema_version: 1,
    };
    const fromString = createMemoryLogger();
    const fromObject = createMemoryLogger();
    const a = parseMessage(JSON.stringify(stored), { logger: fromString });
    const b = parseMessage(JSON.parse(JSON.stringify(stored)), { logger: fromObject });
    expect(a).toEqual(b);
    expect(a.content).toEqual([
      { type: 'text', text: 'hello' },
      { type: 'text', text: 'there' },
    ]);
    const paths = (logger: ReturnType<typeof createMemoryLogger>) =>
      logger.records.map((r) => (r.obj as { path?: string }).path).sort();
    expect(paths(fromString)).toEqual(['content[1]', 'content[2].future', 'metadata.mood']);
    expect(paths(fromObject)).toEqual(paths(fromString));

    // well-formed: the quick path shares the parsed objects when told it may
    const given = JSON.parse(JSON.stringify({ ...stored, content: [stored.content[0]] }));
    const reused = parseMessage(given, { reuse: true });
    expect(reused.content).toBe(given.content);
    const copied = parseMessage(JSON.parse(JSON.stringify(given)));
    expect(copied).toEqual(reused);
  });
});
