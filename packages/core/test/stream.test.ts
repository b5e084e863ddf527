import { describe, expect, it } from 'vitest';
import {
  assertStreamInvariants,
  checkStreamInvariants,
  collectStream,
  createMemoryLogger,
  STREAM_RULES,
  StreamBuilder,
  type StreamEvent,
  StreamInvariantError,
  type StreamRule,
  withStreamInvariants,
} from './exports.js';

const usage = {
  input_tokens: 5,
  output_tokens: 7,
  cached_input_tokens: 0,
  cache_creation_input_tokens: 0,
};
const start: StreamEvent = {
  type: 'message.start',
  request_id: 'req_1',
  model: 'openai:gpt-5',
  provider: 'openai',
};
const complete = (
  final_content: Extract<StreamEvent, { type: 'message.complete' }>['final_content'],
  stop_reason = 'end_turn' as const,
): StreamEvent => ({
  type: 'message.complete',
  request_id: 'req_1',
  final_content,
  stop_reason,
  usage,
  latency_ms: 3,
});

/** A valid stream: text, then a tool use with two fragments. */
function valid(): StreamEvent[] {
  return [
    start,
    { type: 'text.delta', content_block_index: 0, text: 'Let me ' },
    { type: 'text.delta', content_block_index: 0, text: 'look.' },
    { type: 'tool.use_start', content_block_index: 1, tool_use_id: 'tu_1', tool_name: 'read_file' },
    {
      type: 'tool.use_input_delta',
      content_block_index: 1,
      tool_use_id: 'tu_1',
      partial_json: '{"path":',
    },
    {
      type: 'tool.use_input_delta',
      content_block_index: 1,
      tool_use_id: 'tu_1',
      partial_json: '"a.md"}',
    },
    {
      type: 'tool.use_end',
      content_block_index: 1,
      tool_use_id: 'tu_1',
      final_input: { path: 'a.md' },
    },
    complete(
      [
        { type: 'text', text: 'Let me look.' },
        { type: 'tool_use', id: 'tu_1', name: 'read_file', input: { path: 'a.md' } },
      ],
      'tool_use' as never,
    ),
  ];
}

const broken: Record<StreamRule, () => StreamEvent[]> = {
  'start-first': () => {
    const e = valid();
    return [e[1]!, e[0]!, ...e.slice(2)];
  },
  'start-once': () => {
    const e = valid();
    return [e[0]!, e[0]!, ...e.slice(1)];
  },
  'complete-last': () => [...valid(), { type: 'text.delta', content_block_index: 2, text: 'late' }],
  'complete-present': () => valid().slice(0, -1),
  'tool-sequence': () => valid().filter((e) => e.type !== 'tool.use_start'),
  'tool-ended': () => valid().filter((e) => e.type !== 'tool.use_end'),
  'tool-index': () =>
    valid().map((e) => (e.type === 'tool.use_input_delta' ? { ...e, content_block_index: 2 } : e)),
  'tool-final-input-object': () =>
    valid().map((e) =>
      e.type === 'tool.use_end' ? ({ ...e, final_input: ['a.md'] } as unknown as StreamEvent) : e,
    ),
  'index-monotonic': () => {
    const e = valid();
    return [
      ...e.slice(0, 6),
      { type: 'text.delta', content_block_index: 0, text: '!' },
      ...e.slice(6),
    ];
  },
  'final-content-consistent': () =>
    valid().map((e) =>
      e.type === 'message.complete'
        ? { ...e, final_content: [{ type: 'text', text: 'Let me look!' }, e.final_content[1]!] }
        : e,
    ),
};

describe('checkStreamInvariants (contract §5.5)', () => {
  it('accepts a valid stream', () => {
    expect(checkStreamInvariants(valid())).toEqual([]);
    expect(() => assertStreamInvariants(valid())).not.toThrow();
  });

  it('covers every rule', () => {
    expect(Object.keys(broken).sort()).toEqual(Object.keys(STREAM_RULES).sort());
  });

  for (const [rule, events] of Object.entries(broken)) {
    it(`detects a ${rule} violation`, () => {
      const violations = checkStreamInvariants(events());
      expect(violations.map((v) => v.rule)).toContain(rule);
      expect(() => assertStreamInvariants(events())).toThrowError(StreamInvariantError);
    });
  }

  it('reports the position of the offending event', () => {
    const [violation] = checkStreamInvariants(broken['index-monotonic']());
    expect(violation).toMatchObject({ rule: 'index-monotonic', event_index: 6 });
  });

  it('accepts blocks sent whole (no deltas) in final_content', () => {
    const events: StreamEvent[] = [
      start,
      { type: 'text.delta', content_block_index: 1, text: 'hi' },
      complete([
        { type: 'redacted_thinking', data: 'xyz' },
        { type: 'text', text: 'hi' },
      ]),
    ];
    expect(checkStreamInvariants(events)).toEqual([]);
  });
});

describe('withStreamInvariants', () => {
  async function* from(events: StreamEvent[], thenThrow?: Error) {
    for (const e of events) yield e;
    if (thenThrow) throw thenThrow;
  }

  it('passes a valid stream through unchanged', async () => {
    const seen: StreamEvent[] = [];
    for await (const e of withStreamInvariants(from(valid()))) seen.push(e);
    expect(seen).toEqual(valid());
  });

  it('throws at the first bad event, before yielding it', async () => {
    const seen: StreamEvent[] = [];
    const run = async () => {
      for await (const e of withStreamInvariants(from(broken['tool-sequence']()))) seen.push(e);
    };
    await expect(run()).rejects.toThrow(/\[tool-sequence\]/);
    expect(seen.map((e) => e.type)).toEqual(['message.start', 'text.delta', 'text.delta']);
  });

  it('throws at the end when message.complete never came', async () => {
    await expect(collectAll(withStreamInvariants(from(valid().slice(0, -1))))).rejects.toThrow(
      /complete-present/,
    );
  });

  it('lets the underlying error through', async () => {
    const boom = new Error('socket closed');
    await expect(collectAll(withStreamInvariants(from([], boom)))).rejects.toBe(boom);
  });
});

async function collectAll(stream: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

describe('StreamBuilder', () => {
  const make = () =>
    new StreamBuilder({
      request_id: 'req_1',
      model: 'openai:gpt-5',
      provider: 'openai',
      now: () => 1000,
      startedAt: 900,
    });

  it('produces a valid stream with dense indexes and the built content', () => {
    const b = make();
    const events = [
      b.start(),
      ...b.thinking('t', 'hmm'),
      ...b.thinking('t', '', 'sig'),
      ...b.text(0, 'Hel'),
      ...b.text(0, ''),
      ...b.text(0, 'lo'),
      ...b.toolStart('call_a', 'tu_a', 'read_file'),
      ...b.toolInput('call_a', '{"p":'),
      ...b.toolInput('call_a', '1}'),
      ...b.toolStart('call_b', 'tu_b', 'list_dir'),
      ...b.toolEnd('call_b', { dir: '.' }),
      ...b.wholeBlock('r', { type: 'redacted_thinking', data: 'opaque' }),
      ...b.text(0, 'again'),
    ];
    b.updateUsage({ input_tokens: 3 });
    b.updateUsage({ output_tokens: 9 });
    events.push(...b.complete('tool_use'));
    expect(checkStreamInvariants(events)).toEqual([]);
    expect(
      events.map((e) =>
        'content_block_index' in e ? `${e.type}@${e.content_block_index}` : e.type,
      ),
    ).toEqual([
      'message.start',
      'thinking.delta@0',
      'thinking.delta@0',
      'text.delta@1',
      'text.delta@1',
      'tool.use_start@2',
      'tool.use_input_delta@2',
      'tool.use_input_delta@2',
      'tool.use_end@2',
      'tool.use_start@3',
      'tool.use_end@3',
      'text.delta@5',
      'message.complete',
    ]);
    const last = events.at(-1);
    expect(last).toMatchObject({
      stop_reason: 'tool_use',
      latency_ms: 100,
      usage: { input_tokens: 3, output_tokens: 9 },
      final_content: [
        { type: 'thinking', text: 'hmm', signature: 'sig' },
        { type: 'text', text: 'Hello' },
        { type: 'tool_use', id: 'tu_a', name: 'read_file', input: { p: 1 } },
        { type: 'tool_use', id: 'tu_b', name: 'list_dir', input: { dir: '.' } },
        { type: 'redacted_thinking', data: 'opaque' },
        { type: 'text', text: 'again' },
      ],
    });
  });

  it('on interrupt ends open tools with what parses, or {}, then completes', () => {
    const b = make();
    const events = [
      b.start(),
      ...b.toolStart(0, 'tu_done', 'a'),
      ...b.toolInput(0, '{"x": 1}'),
      ...b.toolStart(1, 'tu_cut', 'b'),
    ];
    // tu_done was closed when tu_cut opened; tu_cut is open with a broken fragment
    events.push(...b.toolInput(1, '{"path": "READ'));
    events.push(...b.interrupt('cancelled'));
    expect(checkStreamInvariants(events)).toEqual([]);
    const ends = events.filter((e) => e.type === 'tool.use_end');
    expect(ends.map((e) => e.type === 'tool.use_end' && e.final_input)).toEqual([{ x: 1 }, {}]);
    expect(events.at(-1)).toMatchObject({ type: 'message.complete', stop_reason: 'cancelled' });
    expect(b.interrupt('error')).toEqual([]);
  });

  it('warns when a completed tool input is not valid JSON', () => {
    const logger = createMemoryLogger();
    const b = new StreamBuilder({ request_id: 'r', model: 'm:x', provider: 'm', logger });
    b.start();
    b.toolStart(0, 'tu_1', 'a');
    b.toolInput(0, '{"oops"');
    const [end] = b.toolEnd(0);
    expect(end).toMatchObject({ final_input: {} });
    expect(logger.warnings()[0]?.obj).toMatchObject({
      event: 'tool_input_invalid',
      tool_use_id: 'tu_1',
    });
  });

  it('with toolCallsEndAtFinish folds interleaved fragments into their tool, one end each, in index order', () => {
    const logger = createMemoryLogger();
    const b = new StreamBuilder({
      request_id: 'r',
      model: 'openai:gpt-5',
      provider: 'openai',
      logger,
      toolCallsEndAtFinish: true,
    });
    const events = [
      b.start(),
      ...b.text('text', 'Reading both.'),
      ...b.toolStart(0, 'tu_a', 'read_file'),
      ...b.toolInput(0, '{"path":'),
      ...b.toolStart(1, 'tu_b', 'read_file'),
      ...b.toolInput(1, '{"path":"LICENSE"}'),
      // the first call's last fragment arrives after the second call began
      ...b.toolInput(0, '"README.md"}'),
      ...b.toolEnd(0),
      ...b.toolEnd(1),
      ...b.complete('tool_use'),
    ];
    expect(checkStreamInvariants(events)).toEqual([]);
    expect(logger.warnings()).toEqual([]);
    expect(
      events.map((e) =>
        'content_block_index' in e ? `${e.type}@${e.content_block_index}` : e.type,
      ),
    ).toEqual([
      'message.start',
      'text.delta@0',
      'tool.use_start@1',
      'tool.use_input_delta@1',
      'tool.use_input_delta@1',
      'tool.use_end@1',
      'tool.use_start@2',
      'tool.use_input_delta@2',
      'tool.use_end@2',
      'message.complete',
    ]);
    expect(events.at(-1)).toMatchObject({
      final_content: [
        { type: 'text', text: 'Reading both.' },
        { type: 'tool_use', id: 'tu_a', input: { path: 'README.md' } },
        { type: 'tool_use', id: 'tu_b', input: { path: 'LICENSE' } },
      ],
    });
  });

  it('with toolCallsEndAtFinish ends every held tool at the finish and on an error', () => {
    for (const end of ['complete', 'error'] as const) {
      const b = new StreamBuilder({
        request_id: 'r',
        model: 'm:x',
        provider: 'm',
        toolCallsEndAtFinish: true,
      });
      const events = [
        b.start(),
        ...b.toolStart(0, 'tu_a', 'a'),
        ...b.toolStart(1, 'tu_b', 'b'),
        ...b.toolInput(1, '{"y":2}'),
        ...b.toolStart(2, 'tu_c', 'c'),
        ...b.toolInput(0, '{"x":1}'),
        ...b.text('t', 'after'),
        ...(end === 'complete' ? b.complete('tool_use') : b.interrupt('error')),
      ];
      expect(checkStreamInvariants(events)).toEqual([]);
      const ends = events.filter((e) => e.type === 'tool.use_end');
      expect(ends.map((e) => e.type === 'tool.use_end' && [e.tool_use_id, e.final_input])).toEqual([
        ['tu_a', { x: 1 }],
        ['tu_b', { y: 2 }],
        ['tu_c', {}],
      ]);
      expect(events.at(-2)).toMatchObject({ type: 'text.delta', text: 'after' });
    }
  });

  it('a cancelled stream drops the blocks held behind an open tool use: they were never delivered', () => {
    const b = new StreamBuilder({
      request_id: 'r',
      model: 'm:x',
      provider: 'm',
      toolCallsEndAtFinish: true,
    });
    const events = [
      b.start(),
      ...b.text('t', 'before'),
      ...b.toolStart(0, 'tu_a', 'a'),
      ...b.toolInput(0, '{"x":1}'),
      ...b.toolStart(1, 'tu_b', 'b'),
      ...b.text('t2', 'after'),
      ...b.interrupt('cancelled'),
    ];
    expect(checkStreamInvariants(events)).toEqual([]);
    expect(events.map((e) => e.type)).toEqual([
      'message.start',
      'text.delta',
      'tool.use_start',
      'tool.use_input_delta',
      'tool.use_end',
      'message.complete',
    ]);
    expect(events.at(-1)).toMatchObject({
      stop_reason: 'cancelled',
      final_content: [
        { type: 'text', text: 'before' },
        { type: 'tool_use', id: 'tu_a', input: { x: 1 } },
      ],
    });
  });

  it('releaseHeld hands out the held blocks a step at a time; what is not taken is dropped on cancel', () => {
    const b = new StreamBuilder({
      request_id: 'r',
      model: 'm:x',
      provider: 'm',
      toolCallsEndAtFinish: true,
    });
    const events = [b.start(), ...b.toolStart(0, 'tu_a', 'a'), ...b.toolInput(0, '{}')];
    for (let i = 0; i < 5; i++) events.push(...b.text('t', `w${i}`));
    const steps = b.releaseHeld();
    // the open tool use ends first, then each held call is replayed on its own
    events.push(...(steps.next().value ?? []));
    expect(events.at(-1)).toMatchObject({ type: 'tool.use_end', tool_use_id: 'tu_a' });
    events.push(...(steps.next().value ?? []), ...(steps.next().value ?? []));
    expect(events.filter((e) => e.type === 'text.delta')).toHaveLength(2);
    events.push(...b.interrupt('cancelled'));
    expect(checkStreamInvariants(events)).toEqual([]);
    expect(events.at(-1)).toMatchObject({
      type: 'message.complete',
      final_content: [
        { type: 'tool_use', id: 'tu_a', input: {} },
        { type: 'text', text: 'w0w1' },
      ],
    });
    expect([...b.releaseHeld()]).toEqual([]);
  });

  it('carries the served model and the refusal on message.complete', () => {
    const b = make();
    b.start();
    b.servedModel('openai:gpt-5-2025-08-07');
    const events = [...b.refusal('text', "I can't help "), ...b.refusal('text', 'with that.')];
    events.push(...b.complete('refusal'));
    expect(events.at(-1)).toMatchObject({
      type: 'message.complete',
      stop_reason: 'refusal',
      served_model: 'openai:gpt-5-2025-08-07',
      refusal: "I can't help with that.",
      final_content: [{ type: 'text', text: "I can't help with that." }],
    });
  });

  it('emits message.start first even when interrupted before it', () => {
    const b = make();
    const events = b.interrupt('error');
    expect(events.map((e) => e.type)).toEqual(['message.start', 'message.complete']);
    expect(checkStreamInvariants(events)).toEqual([]);
  });
});

describe('collectStream', () => {
  it('returns final content, stop reason, usage and the trailing error', async () => {
    const boom = new Error('mid-stream');
    async function* events() {
      yield* valid().slice(0, 3);
      yield complete([{ type: 'text', text: 'Let me look.' }], 'error' as never);
      throw boom;
    }
    const collected = await collectStream(events());
    expect(collected.content).toEqual([{ type: 'text', text: 'Let me look.' }]);
    expect(collected.stop_reason).toBe('error');
    expect(collected.usage).toEqual(usage);
    expect(collected.error).toBe(boom);
  });

  it('folds deltas when no message.complete arrived', async () => {
    const collected = await collectStream(valid().slice(0, 5));
    expect(collected.content).toEqual([
      { type: 'text', text: 'Let me look.' },
      { type: 'tool_use', id: 'tu_1', name: 'read_file', input: {} },
    ]);
    expect(collected.stop_reason).toBeNull();
  });
});
