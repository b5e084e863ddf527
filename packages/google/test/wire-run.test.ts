import {
  type CanonicalRequest,
  type ContentBlock,
  type Message,
  newMessageId,
  newRequestId,
  newSessionId,
  sealMessage,
  ToolIdMap,
} from '@yourtool/core';
import { assistantTestMetadata } from '@yourtool/testkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GeminiWireMemory, toGeminiRequest } from '../src/codec/index.js';

/**
 * Gemini's remembered run (decision 0201): the closed turns of a history's leading messages and
 * their JSON, taken whole by the next request. Turns merge across messages, so a history that
 * forks where its next message would join the last remembered turn must still come out as a
 * cold encoding does, and a history that grew must not encode its remembered messages again.
 */
const MODEL = 'google:gemini-2.5-flash';
const session_id = newSessionId();

type Kind = 'user' | 'assistant' | 'call';

/** One message, or a call with its result, as sealed messages. */
function build(kind: Kind, n: number): Message[] {
  const base = { session_id, created_at: '2026-11-28T00:00:00.000000Z', schema_version: 1 };
  const seal = (role: Message['role'], content: ContentBlock[], metadata: object): Message =>
    sealMessage({ ...base, id: newMessageId(), role, content, metadata } as Message);
  if (kind === 'user') return [seal('user', [{ type: 'text', text: `u${n}` }], meta())];
  const assistant = assistantTestMetadata(MODEL);
  if (kind === 'assistant')
    return [seal('assistant', [{ type: 'text', text: `a${n}` }], assistant)];
  const id = `call_${n}`;
  return [
    seal('assistant', [{ type: 'tool_use', id, name: 'read', input: { n } }], assistant),
    seal(
      'tool',
      [
        {
          type: 'tool_result',
          tool_use_id: id,
          content: [{ type: 'text', text: `r${n}` }],
          is_error: false,
        },
      ],
      { ...meta(), parent_tool_use_id: id },
    ),
  ];
}

function meta() {
  return { status: 'complete' };
}

function request(messages: readonly Message[]): CanonicalRequest {
  return {
    request_id: newRequestId(),
    model: MODEL,
    messages: [...messages],
    tools: [],
    stop_sequences: [],
    max_output_tokens: 256,
    stream: false,
  };
}

/** The contents and their recorded JSON, encoded with `memory`. */
function encode(messages: readonly Message[], map: ToolIdMap, memory: GeminiWireMemory) {
  const { params } = toGeminiRequest(request(messages), { toolIdMap: map, wireMemory: memory });
  return { contents: JSON.stringify(params.contents), json: memory.contentsJson(params.contents) };
}

const kinds = fc.array(fc.constantFrom<Kind>('user', 'assistant', 'call'), {
  minLength: 1,
  maxLength: 8,
});

describe('Gemini: one remembered run per history (decision 0201)', () => {
  it('write what a cold encoding writes over histories that grow and fork', () => {
    fc.assert(
      fc.property(kinds, kinds, kinds, (shared, first, second) => {
        const memory = new GeminiWireMemory();
        const map = new ToolIdMap();
        let n = 0;
        const make = (list: Kind[]) => list.flatMap((kind) => build(kind, n++));
        const head = make(shared);
        const histories = [head, [...head, ...make(first)], [...head, ...make(second)]];
        for (const history of [...histories, histories[1] as Message[]]) {
          const warm = encode(history, map, memory);
          const cold = encode(history, map, new GeminiWireMemory());
          expect(warm.contents).toBe(cold.contents);
          expect(warm.json).toBe(cold.json);
          expect(JSON.parse(warm.json ?? 'null')).toEqual(JSON.parse(warm.contents));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('take the closed turns of a grown history whole, encoding only the new messages', () => {
    const memory = new GeminiWireMemory();
    const map = new ToolIdMap();
    const history = [...build('user', 1), ...build('call', 2), ...build('assistant', 3)];
    encode(history, map, memory);
    const target = memory.context(map, JSON.stringify([MODEL, false, false, true]));
    // the last turn stays open (the next message may join it): the run ends before it
    expect(memory.runs.resume(history, target, null).from).toBe(3);
    const grown = [...history, ...build('user', 4), ...build('assistant', 5)];
    encode(grown, map, memory);
    expect(memory.runs.resume(grown, target, null).from).toBe(5);
  });
});
