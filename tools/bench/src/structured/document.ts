import { anthropicFormat } from '@yourtool/wire-formats';
import { prng, words } from '../lib/session.js';

/** Records in the streamed object, and deltas its JSON text is streamed in. */
export const RECORDS = 120;
export const DELTAS = 1_500;

/** The JSON Schema of the object: a list of records, as an application would ask for. */
export const RECORDS_SCHEMA = {
  type: 'object',
  properties: {
    records: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: { type: 'integer' },
          title: { type: 'string' },
          tags: { type: 'array', items: { type: 'string' } },
          score: { type: 'number' },
          active: { type: 'boolean' },
        },
        required: ['id', 'title', 'tags', 'score', 'active'],
        additionalProperties: false,
      },
    },
  },
  required: ['records'],
  additionalProperties: false,
} as const;

/** The object the model streams (the same every run). */
export function recordsObject(): { records: unknown[] } {
  const random = prng(45);
  const records = Array.from({ length: RECORDS }, (_, id) => ({
    id,
    title: words(random, 6),
    tags: [words(random, 1), words(random, 1)],
    score: Math.round(random() * 10_000) / 100,
    active: random() > 0.5,
  }));
  return { records };
}

/** The object's JSON text as a Messages API stream of {@link DELTAS} text deltas. */
export function objectStream(): string[] {
  return [
    ...anthropicFormat({
      messageId: 'msg_01ObjectBench000000000001',
      withoutNewerFields: true,
    }).stream({
      reply: {
        kind: 'message',
        blocks: [{ kind: 'text', text: JSON.stringify(recordsObject()), chunks: DELTAS }],
        usage: { input_tokens: 200, output_tokens: 4_000 },
        stopReason: 'end_turn',
        chunkDelayMs: 0,
      },
      model: 'claude-sonnet-4-6',
      seq: 0,
      body: {},
    }).chunks,
  ];
}
