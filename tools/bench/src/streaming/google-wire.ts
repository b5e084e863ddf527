import { type BlockPart, geminiFormat } from '@yourtool/wire-formats';
import { prng, words } from '../lib/session.js';
import { DEFAULT_STREAM_SIZE, type ExpectedContent, type StreamSize } from './wire.js';

/** A long Gemini `streamGenerateContent?alt=sse` response. */
export interface GeminiWireStream {
  contentType: 'text/event-stream';
  /** Each a whole SSE event. */
  events: string[];
  /** Data events a client's parser yields. */
  dataEvents: number;
  expected: ExpectedContent;
}

/**
 * The same kind of content as the other providers' streams (wire.ts: 10,000 text deltas and
 * three tool calls of about 2.5 KB of arguments), in Gemini's format as `@yourtool/wire-formats`
 * renders it with the live API's CRLF framing: one chunk per text delta, each function call
 * whole in a chunk of its own (the first carrying a thought signature, as Gemini 3 does), then
 * the closing chunk with the finish reason and usage.
 */
export function buildGeminiWireStream(size: StreamSize = DEFAULT_STREAM_SIZE): GeminiWireStream {
  const random = prng(7);
  const deltas: string[] = [];
  for (let i = 0; i < size.textDeltas; i++) {
    deltas.push(`${i === 0 ? '' : ' '}${words(random, 1 + Math.floor(random() * 2))}`);
  }
  const tools = Array.from({ length: size.tools }, (_, t) => ({
    name: t % 2 === 0 ? 'edit_file' : 'write_file',
    input: {
      path: `src/generated/file_${t}.ts`,
      edits: Array.from({ length: size.editsPerTool }, (_, line) => ({
        line: line * 3 + 1,
        text: words(random, 6),
      })),
    } as Record<string, unknown>,
  }));
  const text = deltas.join('');
  const blocks: BlockPart[] = [
    { kind: 'text', text, chunks: deltas.length },
    ...tools.map((tool): BlockPart => ({ ...tool, kind: 'tool_call', id: null, chunks: 1 })),
  ];
  const format = geminiFormat({
    responseId: 'BenchStreamGemini0001',
    callSignature: 'CiQBBenchThoughtSignature0000000000',
    runningTotal: true,
    crlf: true,
    // one chunk per delta of the plan, not an even split
    split: (piece) => (piece === text ? deltas : [piece]),
  });
  const { chunks } = format.stream({
    reply: {
      kind: 'message',
      blocks,
      usage: { input_tokens: 1200, output_tokens: 25_000 },
      stopReason: 'tool_use',
      chunkDelayMs: 0,
    },
    model: 'gemini-3-pro-preview',
    seq: 0,
    body: {},
  });
  return {
    contentType: 'text/event-stream',
    events: [...chunks],
    dataEvents: chunks.length,
    expected: {
      text,
      textDeltas: deltas.length,
      toolFragments: tools.length,
      tools,
    },
  };
}
