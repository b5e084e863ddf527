import { type GenerateContentParameters, GoogleGenAI } from '@google/genai';
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
import { GeminiWireMemory, toGeminiRequest } from '../src/codec/index.js';
import { ContentsText } from '../src/contents-text.js';

/**
 * Each sealed message's Gemini form is remembered per ToolIdMap and target (decision 0194): the
 * parameters, the WARNs and the links recorded must be what a cold encoding of the same history
 * gives, however the history grew and whichever model it went to, and the body sent with the
 * remembered contents JSON must be byte for byte the body `@google/genai` writes from the cold
 * parameters. "Cold" encodes unsealed copies (which nothing remembers) with a copy of the map
 * and no memory; "warm" encodes with one memory, as the adapter holds it (decision 0165).
 */
const memory = new GeminiWireMemory();
const historyMemo = new HistoryMemo();
const text = new ContentsText();

const REPLY = JSON.stringify({
  candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] }, finishReason: 'STOP' }],
});
let captured = '';
const capture: typeof fetch = async (_input, init) => {
  const body = init?.body;
  captured = body instanceof Uint8Array ? new TextDecoder().decode(body) : String(body);
  return new Response(REPLY, { status: 200, headers: { 'content-type': 'application/json' } });
};
const sdk = new GoogleGenAI({ apiKey: 'gemini-test-key', httpOptions: { fetch: capture } });

/** The body text the SDK sends for `params`. */
async function sdkBody(params: GenerateContentParameters): Promise<string> {
  captured = '';
  await sdk.models.generateContent(params);
  return captured;
}

const session_id = newSessionId();
// Gemini 2.5 (images after the results), Gemini 3 (signatures required, nested images)
const MODELS = ['google:gemini-2.5-flash', 'google:gemini-3-pro-preview'] as const;

// a conforming id, ids that are not (derived on the wire), a canonical one
const ids = fc.constantFrom('call_01A', 'call_01B', 'call|x:1', 'y'.repeat(70), 'tu_01JZ');
// a canonical name, and a name Gemini's rule refuses (renamed on the wire, a WARN per request)
const names = fc.constantFrom('read_file', 'fs.read', 'run shell');
const image: ContentBlock = {
  type: 'image',
  source: { kind: 'base64', data: PNG },
  media_type: 'image/png',
};

const block: fc.Arbitrary<ContentBlock> = fc.oneof(
  fc
    .constantFrom('hello', 'more "words" é🙂', ' ')
    .map((t): ContentBlock => ({ type: 'text', text: t })),
  fc.constant(image),
  fc.constant<ContentBlock>({
    type: 'image',
    source: { kind: 'url', data: 'https://example.com/a.png' },
    media_type: 'image/png',
  }),
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
  fc.constant<ContentBlock>({ type: 'thinking', text: 'hmm', signature: 'sig-thinking' }),
);

const spec = fc.record({
  role: fc.constantFrom('user', 'assistant', 'tool', 'assistant', 'user', 'system'),
  content: fc.array(block, { minLength: 1, maxLength: 3 }),
  model: fc.constantFrom(...MODELS),
  signed: fc.boolean(),
});
type Spec = typeof spec extends fc.Arbitrary<infer T> ? T : never;

let nextId = 0;
/** A well-formed tool exchange: an assistant's tool use and the tool message answering it. */
const exchange = fc
  .tuple(ids, names, fc.constantFrom(...MODELS), fc.boolean(), fc.boolean())
  .map(([id, name, model, signed, withImage]) => {
    const unique = `${id}${nextId++}`;
    return [
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: unique, name, input: { n: 1 } }],
        model,
        signed,
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool_result',
            tool_use_id: unique,
            content: withImage ? [image] : [{ type: 'text', text: 'ok' }],
            is_error: false,
          },
        ],
        model,
        signed: false,
      },
    ] as Spec[];
  });

/** Thought signatures as a Gemini reply leaves them: on the first text and every tool use. */
function signaturesOf(content: readonly ContentBlock[]) {
  const tool_use: Record<string, string> = {};
  for (const b of content) if (b.type === 'tool_use') tool_use[b.id] = `sig-${b.id}`;
  return { google: { thought_signatures: { text: { '0': 'sig-text' }, tool_use } } };
}

/** A TOOL message's link to the use its (first) result answers, as a session stores it. */
function parentOf(s: Spec) {
  const [first] = s.content;
  return s.role === 'tool' && first?.type === 'tool_result'
    ? { parent_tool_use_id: first.tool_use_id }
    : {};
}

function build(s: Spec): Message {
  const content =
    s.role === 'system' ? [{ type: 'text' as const, text: 'be brief' }] : (s.content as never);
  const assistant = s.role === 'assistant';
  return sealMessage({
    id: newMessageId(),
    session_id,
    role: s.role as Message['role'],
    content,
    metadata: assistant
      ? {
          ...assistantTestMetadata(s.model),
          status: 'complete',
          ...(s.signed ? { provider_raw: signaturesOf(s.content) } : {}),
        }
      : { status: 'complete', ...parentOf(s) },
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

interface Step {
  append: Spec[][];
  model: string;
  newMap: boolean;
  ids: boolean;
}

/** The parameters (or the error), the contents JSON, WARNs and map links of one encoding. */
function encode(messages: readonly Message[], step: Step, toolIdMap: ToolIdMap, warm: boolean) {
  const logger = createMemoryLogger();
  let params: GenerateContentParameters | null = null;
  let json: Uint8Array | null = null;
  let error: string | null = null;
  try {
    params = toGeminiRequest(request(messages, step.model), {
      toolIdMap,
      logger,
      options: step.ids ? {} : { functionCallIds: false },
      ...(warm ? { wireMemory: memory, historyMemo } : {}),
    }).params;
    json = warm ? memory.contentsBytes(params.contents as never) : null;
  } catch (thrown) {
    error = `threw ${(thrown as Error).message}`;
  }
  // request ids differ between the two encodings; everything else must not
  const warns = logger.records.map(({ obj: { request_id: _, ...obj }, ...rest }) => ({
    ...rest,
    obj,
  }));
  return { params, json, error, warns, links: JSON.stringify(toolIdMap.entries()) };
}

/** Requests over a history that grows by `steps`, each compared warm against cold. */
const requests = (steps: fc.Arbitrary<Spec[]>) =>
  fc.array(
    fc.record({
      append: fc.array(steps, { minLength: 1, maxLength: 4 }),
      model: fc.constantFrom(...MODELS),
      newMap: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
      ids: fc.integer({ min: 0, max: 5 }).map((n) => n !== 0),
    }),
    { minLength: 1, maxLength: 10 },
  );

async function warmIsCold(steps: readonly Step[]) {
  const history: Message[] = [];
  let map = new ToolIdMap();
  for (const step of steps) {
    history.push(...step.append.flat().map(build));
    if (step.newMap) map = new ToolIdMap(map.entries());
    const cold = encode(structuredClone(history), step, new ToolIdMap(map.entries()), false);
    const warm = encode(history, step, map, true);
    expect(warm.error).toBe(cold.error);
    expect(JSON.stringify(warm.params)).toBe(JSON.stringify(cold.params));
    expect(warm.warns).toEqual(cold.warns);
    expect(warm.links).toBe(cold.links);
    if (warm.params === null || cold.params === null) continue;
    expect(warm.json).not.toBeNull();
    const expected = await sdkBody(cold.params);
    for (const asText of [false, true]) {
      const bytes = warm.json as Uint8Array;
      const sent = await sdkBody(text.params(warm.params, bytes, { fetch: capture, text: asText }));
      expect(sent).toBe(expected);
    }
  }
}

describe('Gemini: remembered wire forms (decision 0194)', () => {
  it('send the same bytes, WARNs and links as a cold encoding, request after request', async () => {
    await fc.assert(
      fc.asyncProperty(
        requests(
          fc.oneof(
            spec.map((one) => [one]),
            exchange,
          ),
        ),
        warmIsCold,
      ),
      { numRuns: 120 },
    );
  });

  it('remember only sealed messages whose form cannot change, in the memory given', () => {
    const map = new ToolIdMap();
    const one = (role: Spec['role'], content: ContentBlock[]) =>
      build({ role, content, model: MODELS[0], signed: false });
    const plain = one('user', [{ type: 'text', text: 'a' }]);
    const call = one('assistant', [{ type: 'tool_use', id: 'call_1', name: 'read', input: {} }]);
    const renamed = one('assistant', [
      { type: 'tool_use', id: 'call_2', name: 'fs read', input: {} },
    ]);
    const own = new GeminiWireMemory();
    const messages = [plain, call, renamed];
    toGeminiRequest(request(messages, MODELS[0]), { toolIdMap: map, wireMemory: own });
    const target = (m: GeminiWireMemory) =>
      m.context(map, JSON.stringify([MODELS[0], false, false, true]));
    expect(own.forms.has(plain, target(own))).toBe(true);
    expect(own.forms.has(call, target(own))).toBe(true);
    // a renamed tool is a WARN per request, so its message is encoded each time
    expect(own.forms.has(renamed, target(own))).toBe(false);
    // another memory (another adapter) knows nothing of it
    expect(memory.forms.has(plain, target(memory))).toBe(false);
  });

  it('encode a remembered tool message again when its call now has another name', () => {
    const map = new ToolIdMap();
    const own = new GeminiWireMemory();
    const one = (role: Spec['role'], content: ContentBlock[]) =>
      build({ role, content, model: MODELS[0], signed: false });
    const use = (name: string) =>
      one('assistant', [{ type: 'tool_use', id: 'call_9', name, input: {} }]);
    const result = one('tool', [
      { type: 'tool_result', tool_use_id: 'call_9', content: [], is_error: false },
    ]);
    const names = (first: Message) => {
      const { params } = toGeminiRequest(request([first, result], MODELS[0]), {
        toolIdMap: map,
        wireMemory: own,
      });
      const json = JSON.parse(own.contentsJson(params.contents) ?? 'null') as Array<{
        parts: Array<{ functionResponse?: { name: string } }>;
      }>;
      return [
        params.contents.at(-1)?.parts?.[0]?.functionResponse?.name,
        json.at(-1)?.parts[0]?.functionResponse?.name,
      ];
    };
    expect(names(use('read_file'))).toEqual(['read_file', 'read_file']);
    expect(names(use('write_file'))).toEqual(['write_file', 'write_file']);
  });
});
