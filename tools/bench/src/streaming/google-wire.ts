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
 * three tool calls of about 2.5 KB of arguments), in Gemini's format: one chunk per text delta,
 * each function call whole in a chunk of its own (the first carrying a thought signature, as
 * Gemini 3 does), then the closing chunk with the finish reason and usage.
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
  const events: string[] = [];
  const chunk = (parts: unknown[], extra: Record<string, unknown> = {}) =>
    events.push(
      `data: ${JSON.stringify({
        candidates: [{ content: { role: 'model', parts }, index: 0, ...extra }],
        usageMetadata: { promptTokenCount: 1200, totalTokenCount: 1200 },
        modelVersion: 'gemini-3-pro-preview',
        responseId: 'BenchStreamGemini0001',
      })}\r\n\r\n`,
    );
  for (const text of deltas) chunk([{ text }]);
  tools.forEach((tool, t) => {
    chunk([
      {
        functionCall: { name: tool.name, args: tool.input },
        ...(t === 0 ? { thoughtSignature: 'CiQBBenchThoughtSignature0000000000' } : {}),
      },
    ]);
  });
  events.push(
    `data: ${JSON.stringify({
      candidates: [
        { content: { role: 'model', parts: [{ text: '' }] }, finishReason: 'STOP', index: 0 },
      ],
      usageMetadata: {
        promptTokenCount: 1200,
        candidatesTokenCount: 25_000,
        totalTokenCount: 26_200,
      },
      modelVersion: 'gemini-3-pro-preview',
      responseId: 'BenchStreamGemini0001',
    })}\r\n\r\n`,
  );
  return {
    contentType: 'text/event-stream',
    events,
    dataEvents: events.length,
    expected: {
      text: deltas.join(''),
      textDeltas: deltas.length,
      toolFragments: tools.length,
      tools,
    },
  };
}
