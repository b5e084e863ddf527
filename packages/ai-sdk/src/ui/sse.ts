import type { UiChunk } from './chunks.js';

/**
 * The headers of the AI SDK UI message stream (as `ai`'s `UI_MESSAGE_STREAM_HEADERS`): server-sent
 * events, the protocol's version header, and no buffering by proxies.
 */
export const UI_STREAM_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-vercel-ai-ui-message-stream': 'v1',
  'x-accel-buffering': 'no',
};

/**
 * Encodes chunks as server-sent events (`data: <json>`), ending with `data: [DONE]`.
 * `onCancel` runs when the reader stops early (the client went away).
 */
export function chunksToSse(
  chunks: AsyncIterable<UiChunk>,
  onCancel?: () => void,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const iterator = chunks[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await iterator.next();
      if (next.done) {
        controller.enqueue(encoder.encode('data: [DONE]\n\n'));
        controller.close();
        return;
      }
      controller.enqueue(encoder.encode(`data: ${JSON.stringify(next.value)}\n\n`));
    },
    cancel() {
      onCancel?.();
      // not awaited: a generator waiting for its next chunk finishes only when it gets one
      void iterator.return?.();
    },
  });
}

/** A `Response` carrying the chunks as the UI message stream; see {@link chunksToSse}. */
export function uiStreamResponse(chunks: AsyncIterable<UiChunk>, onCancel?: () => void): Response {
  return new Response(chunksToSse(chunks, onCancel), {
    status: 200,
    headers: { ...UI_STREAM_HEADERS },
  });
}
