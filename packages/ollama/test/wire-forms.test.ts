import {
  type CanonicalRequest,
  type ContentBlock,
  createMemoryLogger,
  type ImageBlock,
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
import { OllamaWireMemory, ollamaChatRequestBody, toOllamaChatRequest } from '../src/codec.js';
import { OllamaAdapter } from '../src/index.js';

/**
 * Each sealed message's `/api/chat` form, and the run of messages a history starts with, are
 * remembered per ToolIdMap (decision 0195): a request body must be byte for byte what a cold
 * encoding of the same history gives, with the same WARNs and the same links recorded in the
 * map, however the history grew and whichever model it went to. "Cold" encodes unsealed copies
 * (which nothing remembers) with a copy of the map and no memory; "warm" encodes with one
 * memory, as the adapter holds it (decision 0165).
 */
const memory = new OllamaWireMemory();
const historyMemo = new HistoryMemo();

const session_id = newSessionId();
// a model that takes tools, images and thinking, and one that takes none of them
const MODELS = ['ollama:qwen3:8b', 'ollama:gemma:2b'] as const;
const capabilities = Object.fromEntries(
  MODELS.map((m) => [
    m,
    new OllamaAdapter(
      { options: { detect_capabilities: false } },
      {
        capabilityOverrides: {
          'ollama:qwen3:8b': {
            supports_tools: true,
            supports_images: true,
            supports_thinking: true,
          },
        },
      },
    ).capabilitiesFor(m),
  ]),
);

// conforming ids, ids that are not (derived on the wire), a canonical one
const ids = fc.constantFrom('call_01A', 'call_01B', 'call|x:1', 'y'.repeat(70), 'tu_01JZ');
// a canonical name, and names the strict rule refuses (renamed on the wire, a WARN per request)
const names = fc.constantFrom('read_file', 'search', 'fs.read', 'run shell');

const image = (url: boolean): ImageBlock => ({
  type: 'image',
  source: url ? { kind: 'url', data: 'https://example.com/a.png' } : { kind: 'base64', data: PNG },
  media_type: 'image/png',
});

const block: fc.Arbitrary<ContentBlock> = fc.oneof(
  fc
    .constantFrom('hello', 'more "quoted" words', 'ünïcode \u2028 🙂', '')
    .map((text): ContentBlock => ({ type: 'text', text })),
  fc.boolean().map(image),
  fc
    .tuple(ids, names)
    .map(([id, name]): ContentBlock => ({ type: 'tool_use', id, name, input: { path: id } })),
  fc.tuple(ids, fc.boolean(), fc.boolean()).map(
    ([id, withImage, isError]): ContentBlock => ({
      type: 'tool_result',
      tool_use_id: id,
      content: [{ type: 'text', text: `result of ${id}` }, ...(withImage ? [image(false)] : [])],
      is_error: isError,
    }),
  ),
  fc.constant<ContentBlock>({ type: 'thinking', text: 'hmm', signature: '' }),
);

const spec = fc.record({
  role: fc.constantFrom('user', 'assistant', 'tool', 'assistant', 'user', 'system'),
  content: fc.array(block, { minLength: 1, maxLength: 3 }),
  model: fc.constantFrom(...MODELS),
});
type Spec = typeof spec extends fc.Arbitrary<infer T> ? T : never;

let nextId = 0;
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

function build(s: Spec): Message {
  const content =
    s.role === 'system' ? [{ type: 'text' as const, text: 'be brief' }] : (s.content as never);
  const toolUse = s.content.find((b) => b.type === 'tool_result');
  return sealMessage({
    id: newMessageId(),
    session_id,
    role: s.role as Message['role'],
    content,
    metadata:
      s.role === 'assistant'
        ? { ...assistantTestMetadata(s.model), status: 'complete' }
        : s.role === 'tool' && toolUse?.type === 'tool_result'
          ? { status: 'complete', parent_tool_use_id: toolUse.tool_use_id }
          : { status: 'complete' },
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
    stream: false,
  };
}

/** The body (or the error), the text sent, WARNs and map links of one encoding. */
function encode(messages: readonly Message[], model: string, toolIdMap: ToolIdMap, warm: boolean) {
  const logger = createMemoryLogger();
  let body: string;
  let text: string | null = null;
  try {
    const { params } = toOllamaChatRequest(request(messages, model), {
      capabilities: capabilities[model] as never,
      toolIdMap,
      logger,
      options: { numCtx: 8192, think: true },
      ...(warm ? { wireMemory: memory, historyMemo } : {}),
    });
    body = JSON.stringify({ ...params, stream: false });
    const sent = ollamaChatRequestBody({ ...params, stream: false }, warm ? memory : undefined);
    text = Buffer.from(sent).toString('utf8');
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
    const cold = encode(structuredClone(history), step.model, new ToolIdMap(map.entries()), false);
    const warm = encode(history, step.model, map, true);
    expect(warm.body).toBe(cold.body);
    if (cold.text !== null) expect(cold.text).toBe(cold.body);
    if (warm.text !== null) expect(warm.text).toBe(cold.body);
    expect(warm.warns).toEqual(cold.warns);
    expect(warm.links).toBe(cold.links);
  }
}

describe('Ollama: remembered wire forms (decision 0195)', () => {
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

  it('send the same bytes over histories mostly remembered (tool exchanges only)', () => {
    fc.assert(fc.property(requests(exchange), warmIsCold), { numRuns: 100 });
  });

  it('remember only sealed messages whose form cannot change, in the memory given', () => {
    const map = new ToolIdMap();
    const model = MODELS[0];
    const plain = build({ role: 'user', content: [{ type: 'text', text: 'a' }], model });
    const renamed = build({
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'call_1', name: 'fs.read', input: {} }],
      model,
    });
    const other = new OllamaWireMemory();
    encode([plain, renamed], model, map, true);
    expect(memory.run([plain, renamed], map)?.messages).toEqual([plain]);
    // its name goes out renamed with a WARN on every request: encoded each time, never in a run
    encode([plain, renamed], model, map, true);
    expect(memory.run([plain, renamed], map)?.messages).toEqual([plain]);
    expect(other.run([plain, renamed], map)).toBeNull();
    expect(memory.run([plain, renamed], new ToolIdMap())).toBeNull();
  });

  it('name a tool result by the latest tool use of its id, remembered or not', () => {
    const model = MODELS[0];
    const use = (name: string): Spec => ({
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'call_9', name, input: {} }],
      model,
    });
    const reply: Spec = {
      role: 'tool',
      content: [{ type: 'tool_result', tool_use_id: 'call_9', content: [], is_error: false }],
      model,
    };
    const asked: Spec = { role: 'user', content: [{ type: 'text', text: 'again' }], model };
    const steps = [
      [use('read_file'), reply, asked],
      [use('search'), reply],
    ];
    // the second step is encoded once more, warm, after the run grew over it
    warmIsCold(steps.map((append) => ({ append: [append], model, newMap: false })));
    warmIsCold([steps, [[asked]]].map((append) => ({ append, model, newMap: false })));
  });

  it('writes nothing remembered into an array changed after encoding', () => {
    const map = new ToolIdMap();
    const history = [
      build({ role: 'user', content: [{ type: 'text', text: 'a' }], model: MODELS[0] }),
    ];
    const { params } = toOllamaChatRequest(request(history, MODELS[0]), {
      capabilities: capabilities[MODELS[0]] as never,
      toolIdMap: map,
      options: { numCtx: 8192 },
      wireMemory: memory,
    });
    params.messages.push({ role: 'user', content: 'added later' });
    expect(Buffer.from(ollamaChatRequestBody(params, memory)).toString('utf8')).toBe(
      JSON.stringify(params),
    );
  });
});
