import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SealedPrefixMemo } from '../src/sealed-prefix.js';
import {
  type AdapterCapabilities,
  type ContentBlock,
  createMemoryLogger,
  estimateRequestTokens,
  HistoryMemo,
  imageSourceViolations,
  type Message,
  newMessageId,
  nowTimestamp,
  type PrepareHistoryOptions,
  prepareHistory,
  type ReplayTarget,
  requestToolNames,
  sealMessage,
} from './exports.js';
import { completeAssistantMeta, PNG_1PX, SESSION } from './helpers.js';

/**
 * What is remembered over the sealed messages a history starts with (decision 0148) must be
 * what a fresh computation gives: the same output, the same WARNs in the same order, the same
 * error. "Fresh" runs on unsealed copies of the same messages, which nothing remembers;
 * prepareHistory remembers in `memo`, as an adapter holds one (decision 0165).
 */
const memo = new HistoryMemo();

const text = (value: string): Message =>
  sealMessage(plain('user', [{ type: 'text', text: value }]));

function plain(
  role: Message['role'],
  content: ContentBlock[],
  metadata: Message['metadata'] = { status: 'complete' },
): Message {
  return {
    id: newMessageId(),
    session_id: SESSION,
    role,
    content,
    metadata,
    created_at: nowTimestamp(),
    schema_version: 1,
  };
}

const caps = (): AdapterCapabilities => ({
  supports_images: true,
  supports_thinking: true,
  supports_tools: true,
  supports_system_prompt: true,
  supports_structured_output: true,
  supports_streaming: true,
  supports_streaming_tool_calls: true,
  supports_parallel_tool_calls: true,
  supports_prompt_caching: false,
  max_context_tokens: 200_000,
  max_output_tokens: 8192,
  accepted_image_media_types: ['image/png'],
});

describe('SealedPrefixMemo', () => {
  it('folds each sealed message once per history, and only the sealed ones it starts with', () => {
    const seen: string[] = [];
    const memo = new SealedPrefixMemo(() => ({ count: 0 }));
    const step = (state: { count: number }, message: Message) => {
      seen.push(message.id);
      state.count++;
    };
    const history = [text('a'), text('b')];
    expect(memo.run(history, step)).toEqual({ state: { count: 2 }, end: 2 });
    const unsealed = plain('user', [{ type: 'text', text: 'new' }]);
    const later = [...history, text('c'), unsealed, text('d')];
    expect(memo.run(later, step)).toEqual({ state: { count: 3 }, end: 3 });
    expect(seen).toEqual(later.slice(0, 3).map((m) => m.id));
    // another key folds apart; a history that does not start with the remembered ones anew
    expect(memo.run(later, step, 'other').state.count).toBe(3);
    const edited = [history[0] as Message, text('b, edited'), ...later.slice(2)];
    expect(memo.run(edited, step)).toEqual({ state: { count: 3 }, end: 3 });
    expect(seen).toHaveLength(3 + 3 + 3);
    // nothing sealed first: nothing remembered
    expect(memo.run([unsealed, ...history], step)).toEqual({ state: { count: 0 }, end: 0 });
  });

  it('two histories that part after the same first messages each get their own fold, back and forth', () => {
    const memo = new SealedPrefixMemo(() => ({ ids: [] as string[] }));
    const other = new SealedPrefixMemo(() => ({ ids: [] as string[] }));
    const step = (state: { ids: string[] }, message: Message) => {
      state.ids.push(message.id);
    };
    const start = [text('a'), text('b')];
    const one = [...start, text('one'), text('one more')];
    const two = [...start, text('two')];
    for (const history of [one, two, one, two, [...one, text('later')], two]) {
      expect(memo.run(history, step).state.ids).toEqual(history.map((m) => m.id));
      expect(other.run(history, step, 'k').state.ids).toEqual(history.map((m) => m.id));
    }
  });

  it('keeps nothing of a fold whose step threw', () => {
    const memo = new SealedPrefixMemo(() => ({ ids: [] as string[] }));
    const history = [text('a'), text('b'), text('c')];
    let failOn: Message | undefined = history[1];
    const step = (state: { ids: string[] }, message: Message) => {
      state.ids.push(message.id);
      if (message === failOn) throw new Error('refused');
    };
    expect(() => memo.run(history, step)).toThrow('refused');
    failOn = undefined;
    expect(memo.run(history, step).state.ids).toEqual(history.map((m) => m.id));
  });
});

// ------------------------------------------------------------------ prepareHistory

describe('prepareHistory over sealed messages', () => {
  const target: ReplayTarget = {
    adapter: 'anthropic',
    model: 'anthropic:claude-sonnet-4-6',
    capabilities: caps(),
  };
  const assistant = (content: ContentBlock[]) =>
    sealMessage(
      plain('assistant', content, {
        ...completeAssistantMeta(),
        status: 'complete',
      } as Message['metadata']),
    );

  it("asks each request's thinking filter again about the thinking it remembered", () => {
    const history = [
      text('hi'),
      assistant([
        { type: 'thinking', text: 'hmm' },
        { type: 'text', text: 'ok' },
      ]),
    ];
    const kept = prepareHistory(history, target, { keepThinking: () => true }, memo);
    expect(kept.messages[1]?.content.map((b) => b.type)).toEqual(['thinking', 'text']);
    const dropped = prepareHistory(history, target, { keepThinking: () => false }, memo);
    expect(dropped).toEqual(
      prepareHistory(structuredClone(history), target, { keepThinking: () => false }),
    );
    expect(dropped.messages[1]?.content.map((b) => b.type)).toEqual(['text']);
  });

  it('pairs a tool use that reuses a remembered id with the remembered result, as a fresh pass does', () => {
    const use = (id: string): ContentBlock => ({
      type: 'tool_use',
      id,
      name: 'read_file',
      input: {},
    });
    const answer = (id: string) =>
      sealMessage(
        plain(
          'tool',
          [
            {
              type: 'tool_result',
              tool_use_id: id,
              content: [{ type: 'text', text: id }],
              is_error: false,
            },
          ],
          { status: 'complete', parent_tool_use_id: id },
        ),
      );
    const history = [
      text('go'),
      assistant([use('toolu_a')]),
      answer('toolu_a'),
      assistant([{ type: 'text', text: 'done' }]),
    ];
    prepareHistory(history, target, {}, memo); // remembered, paired
    const more = [...history, text('again'), assistant([use('toolu_a')])];
    const logger = createMemoryLogger();
    const freshLogger = createMemoryLogger();
    const got = prepareHistory(more, target, { logger }, memo);
    expect(got).toEqual(prepareHistory(structuredClone(more), target, { logger: freshLogger }));
    expect(logger.records).toEqual(freshLogger.records);
    expect(got.repairs.map((r) => r.kind)).toEqual(['tool_result_moved']);
  });
});

// ------------------------------------------------------------------ histories, at random

const TARGETS: ReplayTarget[] = [
  { adapter: 'anthropic', model: 'anthropic:claude-sonnet-4-6', capabilities: caps() },
  {
    adapter: 'openai',
    model: 'openai:gpt-5',
    capabilities: { ...caps(), supports_thinking: false, supports_images: false },
  },
  { adapter: 'ollama', model: 'ollama:llama3', capabilities: { ...caps(), supports_tools: false } },
];
const FILTERS: Array<PrepareHistoryOptions['keepThinking']> = [
  undefined,
  () => true,
  (block) => block.type === 'redacted_thinking' || Boolean(block.signature),
];

const ids = fc.constantFrom('toolu_1', 'toolu_2', 'toolu_3', 'toolu_4');
const block: fc.Arbitrary<ContentBlock> = fc.oneof(
  fc
    .constantFrom('hello', '  ', 'more words')
    .map((t): ContentBlock => ({ type: 'text', text: t })),
  fc.constantFrom('image/png', 'image/gif').map(
    (media_type): ContentBlock => ({
      type: 'image',
      source: { kind: 'base64', data: PNG_1PX },
      media_type,
    }),
  ),
  // sources no provider can use (rule image-source)
  fc.constantFrom<ContentBlock>(
    { type: 'image', source: { kind: 'base64', data: 'not base64!' }, media_type: 'image/png' },
    {
      type: 'image',
      source: { kind: 'url', data: 'ftp://example.com/a.png' },
      media_type: 'image/png',
    },
  ),
  ids.map((id): ContentBlock => ({ type: 'tool_use', id, name: 'read_file', input: { path: id } })),
  ids.map(
    (id): ContentBlock => ({
      type: 'tool_result',
      tool_use_id: id,
      content: [{ type: 'text', text: `result of ${id}` }],
      is_error: false,
    }),
  ),
  fc.option(fc.constant('sig'), { nil: undefined }).map(
    (signature): ContentBlock => ({
      type: 'thinking',
      text: 'hmm',
      ...(signature ? { signature } : {}),
    }),
  ),
);
const spec = fc.record({
  role: fc.constantFrom('user', 'assistant', 'tool', 'system', 'assistant', 'user'),
  content: fc.array(block, { minLength: 0, maxLength: 3 }),
  status: fc.constantFrom('complete', 'complete', 'complete', 'partial', 'error'),
  model: fc.constantFrom('anthropic:claude-sonnet-4-6', 'openai:gpt-5'),
  critical: fc.integer({ min: 0, max: 19 }).map((n) => n === 0),
});

type Spec = typeof spec extends fc.Arbitrary<infer T> ? T : never;

function build(s: Spec): Message {
  const metadata = {
    ...(s.role === 'assistant' ? completeAssistantMeta(s.model) : {}),
    status: s.status,
    ...(s.critical ? { critical: true } : {}),
  } as Message['metadata'];
  return plain(s.role as Message['role'], s.content, metadata);
}

/**
 * A turn as a session stores it: the user's text, an assistant's tool uses, a tool message
 * answering each, the assistant's text. Its tool use ids are new unless `reuse` names earlier
 * ones (`-1`: a new one): an id used again, a result for an earlier use.
 */
const turn = fc.record({
  uses: fc.integer({ min: 0, max: 2 }),
  /** A use left unanswered (a turn cut short), `-1` for none. */
  skip: fc.integer({ min: -1, max: 2 }),
  reuse: fc.array(fc.integer({ min: -1, max: 5 }), { minLength: 3, maxLength: 3 }),
  answerOld: fc.integer({ min: -1, max: 5 }),
});
type Turn = typeof turn extends fc.Arbitrary<infer T> ? T : never;
let nextId = 0;

function buildTurn(t: Turn, history: readonly Message[]): Message[] {
  const earlier = history.flatMap((m) =>
    m.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : [])),
  );
  const pick = (n: number) =>
    n >= 0 && earlier.length > 0 ? earlier[n % earlier.length] : undefined;
  const uses = Array.from(
    { length: t.uses },
    (_, i) => pick(t.reuse[i] ?? -1) ?? `toolu_t${nextId++}`,
  );
  const answers = [
    ...uses.filter((_, i) => i !== t.skip),
    ...(pick(t.answerOld) ? [pick(t.answerOld) as string] : []),
  ];
  const assistant = (content: ContentBlock[]) =>
    plain('assistant', content, {
      ...completeAssistantMeta(),
      status: 'complete',
    } as Message['metadata']);
  return [
    plain('user', [{ type: 'text', text: 'go on' }]),
    ...(uses.length > 0
      ? [
          assistant(uses.map((id) => ({ type: 'tool_use', id, name: 'read_file', input: {} }))),
          ...answers.map((id) =>
            plain(
              'tool',
              [
                {
                  type: 'tool_result',
                  tool_use_id: id,
                  content: [{ type: 'text', text: id }],
                  is_error: false,
                },
              ],
              { status: 'complete', parent_tool_use_id: id },
            ),
          ),
        ]
      : []),
    assistant([{ type: 'text', text: 'done' }]),
  ];
}

type Op =
  | { kind: 'turn'; turn: Turn; sealed: boolean }
  | { kind: 'append'; specs: Array<Spec> }
  | { kind: 'tail'; specs: Array<Spec> }
  | { kind: 'edit'; at: number; spec: Spec }
  | { kind: 'compact'; drop: number }
  | { kind: 'target'; target: number; filter: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({ kind: fc.constant('turn' as const), turn, sealed: fc.boolean() }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('append' as const),
      specs: fc.array(spec, { minLength: 1, maxLength: 4 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('tail' as const),
      specs: fc.array(spec, { maxLength: 3 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('edit' as const), at: fc.nat(), spec }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('compact' as const), drop: fc.nat({ max: 3 }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('target' as const),
      target: fc.nat({ max: TARGETS.length - 1 }),
      filter: fc.nat({ max: FILTERS.length - 1 }),
    }),
  },
);

/** prepareHistory's result (remembered in `warm`), or the error it threw, with its WARNs. */
function prepared(
  messages: readonly Message[],
  target: ReplayTarget,
  filter: number,
  warm?: HistoryMemo,
) {
  const logger = createMemoryLogger();
  const keepThinking = FILTERS[filter];
  const options: PrepareHistoryOptions = {
    system_prompt: 'Base.',
    logger,
    ...(keepThinking ? { keepThinking } : {}),
  };
  try {
    return { result: prepareHistory(messages, target, options, warm), logs: logger.records };
  } catch (error) {
    return { error: (error as Error).message, logs: logger.records };
  }
}

describe('what is remembered over sealed messages equals a fresh computation', () => {
  it('prepareHistory, token estimates and tool names, after appends, edits, compactions and target changes', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 30 }), (ops) => {
        let history: Message[] = [];
        let tail: Message[] = [];
        let target = 0;
        let filter = 0;
        for (const step of ops) {
          if (step.kind === 'turn') {
            const added = buildTurn(step.turn, history);
            if (step.sealed) history = [...history, ...added.map((m) => sealMessage(m))];
            else tail = added;
          } else if (step.kind === 'append')
            history = [...history, ...step.specs.map((s) => sealMessage(build(s)))];
          else if (step.kind === 'tail') tail = step.specs.map(build);
          else if (step.kind === 'edit' && history.length > 0)
            history = history.with(step.at % history.length, sealMessage(build(step.spec)));
          else if (step.kind === 'compact') history = history.slice(step.drop);
          else if (step.kind === 'target') ({ target, filter } = step);
          const messages = [...history, ...tail];
          const fresh = structuredClone(messages);
          const on = TARGETS[target] as ReplayTarget;
          expect(prepared(messages, on, filter, memo)).toEqual(prepared(fresh, on, filter));
          expect(estimateRequestTokens(messages)).toBe(estimateRequestTokens(fresh));
          expect(imageSourceViolations(messages)).toEqual(imageSourceViolations(fresh));
          expect([...requestToolNames({ messages })]).toEqual([
            ...requestToolNames({ messages: fresh }),
          ]);
        }
      }),
      { numRuns: 300 },
    );
  });
});
