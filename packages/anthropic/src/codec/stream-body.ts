import { type Anthropic, APIError } from '@anthropic-ai/sdk';
import { parseSseData, type WireBody } from '@yourtool/core/adapter';
import { readAnthropicDelta } from './stream-fast.js';

/** One event of the Messages API stream, as the SDK types it. */
export type AnthropicStreamChunk = Anthropic.RawMessageStreamEvent;

/**
 * The Messages API's SSE response body, for core to read (the SDK sent the request and checked
 * the status): events are taken exactly as the SDK's own stream takes them, so every recorded
 * stream parses the same. Unnamed events and `ping` are skipped; an `error` event fails the read
 * with the SDK's own `APIError` (so it is classified like one the SDK threw); other events with
 * data are parsed as JSON (core's `MalformedStreamError`, a `server_error` naming the line,
 * otherwise).
 */
export function anthropicStreamBody(response: Response): WireBody<AnthropicStreamChunk> {
  const body = response.body;
  if (!body) throw new Error('the streaming response has no body');
  return {
    body,
    framing: 'sse',
    parse: (data, event, line) => {
      if (event === '' || event === 'ping') return undefined;
      if (event === 'error') {
        const parsed = parseOrNull(data);
        const type = (parsed as { error?: { type?: string } } | null)?.error?.type;
        throw new APIError(undefined, parsed ?? data, undefined, response.headers, type as never);
      }
      if (data === '') return undefined;
      if (event === 'content_block_delta') {
        const delta = readAnthropicDelta(data);
        if (delta) return delta;
      }
      return parseSseData(data, event, line) as AnthropicStreamChunk;
    },
  };
}

function parseOrNull(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    return null;
  }
}
