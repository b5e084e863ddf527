import { parseSseData, STREAM_DONE, type WireBody } from '@yourtool/core/adapter';
import { APIError } from 'openai';

/**
 * An OpenAI SSE response body (Chat Completions or Responses), for core to read once the SDK
 * sent the request and checked the status. Events are taken as the SDK's own stream takes them,
 * so every recorded stream parses the same: `data: [DONE]` ends the stream (then `end`, if
 * given, supplies the adapter's end marker, also when the body ends without it); an `error`
 * event, or data with an `error` member, fails the read with the SDK's own `APIError` (classified
 * like one the SDK threw); Assistants' `thread.*` events are skipped; data that is not JSON is
 * core's `MalformedStreamError` (a `server_error` naming the line).
 */
export function openAIStreamBody<Chunk>(response: Response, end?: () => Chunk): WireBody<Chunk> {
  const body = response.body;
  if (!body) throw new Error('the streaming response has no body');
  return {
    body,
    framing: 'sse',
    parse: (data, event, line) => {
      if (data === '[DONE]') return STREAM_DONE;
      const parsed = parseSseData(data, event, line) as { error?: unknown } | null;
      if (event.startsWith('thread.')) return undefined;
      if (event === 'error') {
        throw new APIError(
          undefined,
          parsed?.error ?? parsed ?? undefined,
          undefined,
          response.headers,
        );
      }
      if (parsed?.error) throw new APIError(undefined, parsed.error, undefined, response.headers);
      return parsed as Chunk;
    },
    ...(end ? { end } : {}),
  };
}
