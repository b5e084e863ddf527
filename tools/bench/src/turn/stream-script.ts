import { anthropicFormat } from '@yourtool/wire-formats';

/** The reply `turn/stream`'s server streams: ten thousand short words. */
export const STREAM_TEXT = Array.from({ length: 10_000 }, (_, i) => `w${i} `).join('');

/** The reply as the Messages API streams it, one SSE event a chunk (`@yourtool/wire-formats`). */
export const STREAM_CHUNKS: readonly string[] = anthropicFormat({
  messageId: 'msg_01TurnStreamBench000000001',
  withoutNewerFields: true,
}).stream({
  reply: {
    kind: 'message',
    blocks: [{ kind: 'text', text: STREAM_TEXT, chunks: 10_000 }],
    usage: { input_tokens: 10, output_tokens: 10_000 },
    stopReason: 'end_turn',
    chunkDelayMs: 0,
  },
  model: 'claude-sonnet-4-6',
  seq: 0,
  body: {},
}).chunks;

/** How many text deltas the reply streams (the renderer splits the text its own way). */
export const STREAM_DELTAS = STREAM_CHUNKS.filter((chunk) => chunk.includes('"text_delta"')).length;
