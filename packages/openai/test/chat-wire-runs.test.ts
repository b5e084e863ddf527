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
import { HistoryMemo } from '@yourtool/core/adapter';
import { assistantTestMetadata, PNG_1PX_BASE64 as PNG } from '@yourtool/testkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chatRequestBytes, OpenAIChatWireMemory, toOpenAIChatParams } from '../src/codec.js';
import { OpenAIAdapter } from '../src/index.js';

/**
 * The run of a history's leading Chat Completions messages and their UTF-8 JSON (decision 0193):
 * the bytes a request body is written as must be byte for byte a cold encoding's JSON, with the
 * same WARNs and links, over histories that grow, are cut back and grow another way (tool
 * result images wait for the user message after their run of tool messages: the run may end
 * only where none wait). "Cold" encodes unsealed copies with a copy of the map and no memory.
 */
const memory = new OpenAIChatWireMemory();
const historyMemo = new HistoryMemo();

const session_id = newSessionId();
const MODELS = ['openai:gpt-5', 'openai:gpt-4.1'] as const;
const capabilities = Object.fromEntries(
  MODELS.map((m) => [m, new OpenAIAdapter({ api_key: 'sk-test' }).capabilitiesFor(m)]),
);

// a conforming id, ids that are not (derived on the wire), a canonical one
const ids = fc.constantFrom('call_01A', 'call_01B', 'call|x:1', 'y'.repeat(50), 'tu_01JZ');
// a canonical name, and names the strict rule refuses (renamed on the wire, a WARN per request)
const names = fc.constantFrom('read_file', 'fs.read', 'run shell');
const image = {
  type: 'image' as const,
  source: { kind: 'base64' as const, data: PNG },
  media_type: 'image/png',
};

const block: fc.Arbitrary<ContentBlock> = fc.oneof(
  fc
    .constantFrom('hello', 'more "words"\n', 'ünï 🙂')
    .map((text): ContentBlock => ({ type: 'text', text })),
  fc.constant<ContentBlock>(image),
  fc
    .tuple(ids, names)
    .map(([id, name]): ContentBlock => ({ type: 'tool_use', id, name, input: { path: id } })),
  fc.tuple(ids, fc.boolean()).map(
    ([id, withImage]): ContentBlock => ({
      type: 'tool_result',
      tool_use_id: id,
      content: [{ type: 'text', text: `result of ${id}` }, ...(withImage ? [image] : [])],
      is_error: id.endsWith('B'),
    }),
  ),
  fc.constantFrom<ContentBlock>(
    { type: 'thinking', text: 'hmm', signature: 'enc' },
    { type: 'thinking', text: 'unsigned' },
    { type: 'redacted_thinking', data: 'opaque' },
  ),
);

const spec = fc.record({
  role: fc.constantFrom('user', 'assistant', 'tool', 'assistant', 'user', 'system'),
  content: fc.array(block, { minLength: 1, maxLength: 3 }),
  model: fc.constantFrom(...MODELS),
});
type Spec = typeof spec extends fc.Arbitrary<infer T> ? T : never;

let nextId = 0;
/** A well-formed tool exchange: an assistant's tool use and the tool message answering it. */
const exchange = fc
  .tuple(ids, names, fc.constantFrom(...MODELS), fc.boolean())
  .map(([id, name, model, withImage]) => {
    const unique = `${id}${nextId++}`;
    return [
      { role: 'assistant', content: [{ type: 'tool_use', id: unique, name, input: {} }], model },
      {
        role: 'tool',
        content: [
          {
            type: 'tool_result',
            tool_use_id: unique,
            content: withImage ? [{ type: 'text', text: 'see' }, image] : [],
            is_error: false,
          },
        ],
        model,
      },
    ] as Spec[];
  });

/** A tool message's link to the use it answers, as a session stores it (it then stays sealed). */
function replyTo(s: Spec): { parent_tool_use_id?: string } {
  const [first] = s.content;
  if (s.role !== 'tool' || s.content.length !== 1 || first?.type !== 'tool_result') return {};
  return { parent_tool_use_id: first.tool_use_id };
}

function build(s: Spec): Message {
  const content =
    s.role === 'system' ? [{ type: 'text' as const, text: 'be brief' }] : (s.content as never);
  return sealMessage({
    id: newMessageId(),
    session_id,
    role: s.role as Message['role'],
    content,
    metadata:
      s.role === 'assistant'
        ? { ...assistantTestMetadata(s.model), status: 'complete' }
        : { status: 'complete', ...replyTo(s) },
    created_at: '2026-11-27T10:00:00.000000Z',
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

/** The body (or the error), the bytes written, WARNs and map links of one encoding. */
function encode(messages: readonly Message[], model: string, toolIdMap: ToolIdMap, warm: boolean) {
  const logger = createMemoryLogger();
  let body: string;
  let bytes: string | null = null;
  try {
    const { params } = toOpenAIChatParams(request(messages, model), {
      wireName: model.slice('openai:'.length),
      capabilities: capabilities[model] as never,
      toolIdMap,
      logger,
      ...(warm ? { wireMemory: memory, historyMemo } : {}),
    });
    body = JSON.stringify({ ...params, stream: true });
    const written = chatRequestBytes({ ...params, stream: true }, warm ? memory : undefined);
    bytes = Buffer.from(written).toString('utf8');
  } catch (error) {
    body = `threw ${(error as Error).message}`;
  }
  // request ids differ between the two encodings; everything else must not
  const warns = logger.records.map(({ obj: { request_id: _, ...obj }, ...rest }) => ({
    ...rest,
    obj,
  }));
  return { body, bytes, warns, links: JSON.stringify(toolIdMap.entries()) };
}

/** Requests over a history that grows by `steps` (cut back by `cut` first), warm against cold. */
const requests = (steps: fc.Arbitrary<Spec[]>) =>
  fc.array(
    fc.record({
      cut: fc.integer({ min: 0, max: 12 }).map((n) => (n > 2 ? 0 : n * 2)),
      append: fc.array(steps, { minLength: 1, maxLength: 4 }),
      model: fc.constantFrom(...MODELS),
      newMap: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
    }),
    { minLength: 1, maxLength: 12 },
  );

type Step = { cut: number; append: Spec[][]; model: string; newMap: boolean };

function warmIsCold(steps: readonly Step[]) {
  let history: Message[] = [];
  let map = new ToolIdMap();
  for (const step of steps) {
    history = history.slice(0, Math.max(0, history.length - step.cut));
    history.push(...step.append.flat().map(build));
    if (step.newMap) map = new ToolIdMap(map.entries());
    const cold = encode(structuredClone(history), step.model, new ToolIdMap(map.entries()), false);
    const warm = encode(history, step.model, map, true);
    expect(warm.body).toBe(cold.body);
    if (cold.bytes !== null) expect(cold.bytes).toBe(cold.body);
    if (warm.bytes !== null) expect(warm.bytes).toBe(cold.body);
    expect(warm.warns).toEqual(cold.warns);
    expect(warm.links).toBe(cold.links);
  }
}

describe('OpenAI Chat Completions: remembered runs of wire messages (decision 0193)', () => {
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
      { numRuns: 150 },
    );
  });

  it('over histories nothing repairs, most of which is remembered', () => {
    const plain: fc.Arbitrary<Spec> = fc.record({
      role: fc.constantFrom<Spec['role']>('user', 'assistant'),
      content: fc.array(
        block.filter((b) => b.type === 'text' || b.type === 'image'),
        {
          minLength: 1,
          maxLength: 2,
        },
      ),
      model: fc.constant<Spec['model']>(MODELS[0]),
    });
    fc.assert(
      fc.property(
        requests(
          fc.oneof(
            plain.map((one) => [one]),
            exchange,
          ),
        ),
        warmIsCold,
      ),
      { numRuns: 100 },
    );
  });

  it('writes nothing remembered into an array changed after encoding', () => {
    const map = new ToolIdMap();
    const history = [
      build({ role: 'user', content: [{ type: 'text', text: 'a' }], model: MODELS[0] }),
    ];
    const { params } = toOpenAIChatParams(request(history, MODELS[0]), {
      wireName: 'gpt-5',
      capabilities: capabilities[MODELS[0]] as never,
      toolIdMap: map,
      wireMemory: memory,
    });
    params.messages.push({ role: 'user', content: 'added later' });
    const bytes = Buffer.from(chatRequestBytes(params, memory)).toString('utf8');
    expect(bytes).toBe(JSON.stringify(params));
  });
});
