import {
  type CanonicalRequest,
  type ContentBlock,
  createMemoryLogger,
  type Message,
  newMessageId,
  newRequestId,
  newSessionId,
  sealMessage,
  ToolIdMap,
} from '@yourtool/core';
import { assistantTestMetadata, PNG_1PX_BASE64 as PNG } from '@yourtool/testkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anthropicRequestBody } from '../src/codec/body.js';
import { AnthropicWireMemory, toAnthropicParams } from '../src/codec.js';

/**
 * Each sealed message's wire form is remembered per ToolIdMap (decision 0149): a request body
 * must be byte for byte what a cold encoding of the same history gives, with the same WARNs
 * and the same links recorded in the map, however the history grew and whichever model it
 * went to. "Cold" encodes unsealed copies (which nothing remembers) with a copy of the map.
 * "Warm" encodes with one memory, as an adapter holds it (decision 0165).
 */
const memory = new AnthropicWireMemory();

const session_id = newSessionId();
const MODELS = ['anthropic:claude-sonnet-4-6', 'anthropic:claude-opus-4-6'] as const;

// a conforming Anthropic id, one that is not (derived on the wire), a canonical one
const ids = fc.constantFrom('toolu_01A', 'toolu_01B', 'call|x:1', 'call|y:2', 'tu_01JZ');
// a canonical name, and names another provider allowed that Anthropic's rule refuses
const names = fc.constantFrom('read_file', 'fs.read', 'run shell');

const block: fc.Arbitrary<ContentBlock> = fc.oneof(
  fc.constantFrom('hello', 'more words').map((text): ContentBlock => ({ type: 'text', text })),
  fc.constant<ContentBlock>({
    type: 'image',
    source: { kind: 'base64', data: PNG },
    media_type: 'image/png',
  }),
  fc
    .tuple(ids, names)
    .map(([id, name]): ContentBlock => ({ type: 'tool_use', id, name, input: { path: id } })),
  ids.map(
    (id): ContentBlock => ({
      type: 'tool_result',
      tool_use_id: id,
      content: [{ type: 'text', text: `result of ${id}` }],
      is_error: id.endsWith('B'),
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
  role: fc.constantFrom('user', 'assistant', 'tool', 'assistant', 'user'),
  content: fc.array(block, { minLength: 1, maxLength: 3 }),
  model: fc.constantFrom(...MODELS),
});
type Spec = typeof spec extends fc.Arbitrary<infer T> ? T : never;

/** A well-formed tool exchange: an assistant's tool use and the tool message answering it. */
const exchange = fc.tuple(ids, names, fc.constantFrom(...MODELS)).map(([id, name, model]) => {
  const unique = `${id}${nextId++}`;
  return [
    { role: 'assistant', content: [{ type: 'tool_use', id: unique, name, input: {} }], model },
    {
      role: 'tool',
      content: [{ type: 'tool_result', tool_use_id: unique, content: [], is_error: false }],
      model,
    },
  ] as Spec[];
});
let nextId = 0;

function build(s: Spec): Message {
  return sealMessage({
    id: newMessageId(),
    session_id,
    role: s.role as Message['role'],
    content: s.content,
    metadata:
      s.role === 'assistant'
        ? { ...assistantTestMetadata(s.model), status: 'complete' }
        : { status: 'complete' },
    created_at: '2026-11-25T10:00:00.000000Z',
    schema_version: 1,
  } as Message);
}

function request(messages: readonly Message[], model: string): CanonicalRequest {
  return {
    request_id: newRequestId(),
    model,
    messages: [...messages],
    tools: [],
    stop_sequences: [],
    max_output_tokens: 2048,
    stream: true,
  };
}

/** The body (or the error), WARNs and map links of one encoding (warm with `memory`). */
function encode(
  messages: readonly Message[],
  model: string,
  toolIdMap: ToolIdMap,
  memory?: AnthropicWireMemory,
) {
  const logger = createMemoryLogger();
  let body: string;
  let text: string | null = null;
  try {
    const { params } = toAnthropicParams(request(messages, model), {
      toolIdMap,
      logger,
      ...(memory ? { memory } : {}),
    });
    body = JSON.stringify({ ...params, stream: true });
    // the text the adapter sends, its remembered turns' text reused
    text = Buffer.from(anthropicRequestBody({ ...params, stream: true }, memory)).toString('utf8');
  } catch (error) {
    body = `threw ${(error as Error).message}`;
  }
  // request ids differ between the two encodings; everything else must not
  const warns = logger.records.map(({ obj: { request_id: _, ...obj }, ...rest }) => ({
    ...rest,
    obj,
  }));
  return { body, text, warns, links: JSON.stringify(toolIdMap.entries()) };
}

describe('remembered wire forms (decision 0149)', () => {
  /** Requests over a history that grows by `steps`, each compared warm against cold. */
  const requests = (steps: fc.Arbitrary<Spec[]>) =>
    fc.array(
      fc.record({
        append: fc.array(steps, { minLength: 1, maxLength: 4 }),
        model: fc.constantFrom(...MODELS),
        newMap: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
      }),
      { minLength: 1, maxLength: 12 },
    );

  function warmIsCold(steps: ReadonlyArray<{ append: Spec[][]; model: string; newMap: boolean }>) {
    const history: Message[] = [];
    let map = new ToolIdMap();
    for (const step of steps) {
      history.push(...step.append.flat().map(build));
      if (step.newMap) map = new ToolIdMap(map.entries());
      const coldMap = new ToolIdMap(map.entries());
      const cold = encode(structuredClone(history), step.model, coldMap);
      const warm = encode(history, step.model, map, memory);
      expect(warm.body).toBe(cold.body);
      if (warm.text !== null) expect(warm.text).toBe(cold.body);
      expect(warm.warns).toEqual(cold.warns);
      expect(warm.links).toBe(cold.links);
    }
  }

  it('send the same bytes, WARNs and links as a cold encoding, request after request', () => {
    fc.assert(
      fc.property(
        requests(
          fc.oneof(
            spec.map((one) => [one]),
            exchange,
          ),
        ),
        warmIsCold,
      ),
      { numRuns: 200 },
    );
  });

  it('the same over histories nothing repairs (where most is remembered)', () => {
    // text, images and signed thinking of either role (same-role runs merge), tool exchanges
    const plainBlock = fc.oneof(
      fc.constantFrom('hello', 'more words').map((text): ContentBlock => ({ type: 'text', text })),
      fc.constant<ContentBlock>({
        type: 'image',
        source: { kind: 'base64', data: PNG },
        media_type: 'image/png',
      }),
    );
    const plain = fc
      .record({
        role: fc.constantFrom('user', 'assistant'),
        content: fc.array(plainBlock, { minLength: 1, maxLength: 2 }),
        model: fc.constantFrom(...MODELS),
      })
      .map((s): Spec[] => [s]);
    fc.assert(fc.property(requests(fc.oneof(plain, plain, exchange)), warmIsCold), {
      numRuns: 200,
    });
  });

  it('WARNs a renamed tool name on every request, from a remembered form too', () => {
    const map = new ToolIdMap();
    const history = [
      build({ role: 'user', content: [{ type: 'text', text: 'go' }], model: MODELS[0] }),
      ...[
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'toolu_9', name: 'fs.read', input: {} }],
        },
        {
          role: 'tool',
          content: [{ type: 'tool_result', tool_use_id: 'toolu_9', content: [], is_error: false }],
        },
      ].map((s) => build({ ...s, model: MODELS[0] } as Spec)),
    ];
    for (let i = 0; i < 3; i++) {
      const mapped = encode(history, MODELS[0], map, memory).warns.filter(
        (w) => w.obj.event === 'tool_name_mapped',
      );
      expect(mapped.map((w) => w.obj.tool_name)).toEqual(['fs.read']);
    }
  });

  it('leaves a remembered form unchanged when turns are merged around it', () => {
    const map = new ToolIdMap();
    const first = build({ role: 'user', content: [{ type: 'text', text: 'a' }], model: MODELS[0] });
    const lone = encode([first], MODELS[0], map, memory).body;
    // a second user message merges into the first one's turn: a copy, not the remembered array
    const second = build({
      role: 'user',
      content: [{ type: 'text', text: 'b' }],
      model: MODELS[0],
    });
    const merged = JSON.parse(encode([first, second], MODELS[0], map, memory).body);
    expect(merged.messages[0].content).toHaveLength(2);
    expect(encode([first], MODELS[0], map, memory).body).toBe(lone);
  });
});

describe('AnthropicWireMemory (decision 0165)', () => {
  it('remembers only in the memory it is given, and nothing without one', () => {
    const map = new ToolIdMap();
    const history = [
      build({ role: 'user', content: [{ type: 'text', text: 'a' }], model: MODELS[0] }),
      build({ role: 'assistant', content: [{ type: 'text', text: 'b' }], model: MODELS[0] }),
    ];
    const mine = new AnthropicWireMemory();
    const other = new AnthropicWireMemory();
    const cold = encode(history, MODELS[0], map);
    expect(history.some((m) => mine.forms.has(m, map) || other.forms.has(m, map))).toBe(false);
    const warm = encode(history, MODELS[0], map, mine);
    expect(warm.body).toBe(cold.body);
    expect(warm.text).toBe(cold.body);
    expect(history.every((m) => mine.forms.has(m, map))).toBe(true);
    expect(history.some((m) => other.forms.has(m, map))).toBe(false);
  });
});
