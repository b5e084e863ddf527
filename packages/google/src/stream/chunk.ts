import { ApiError } from '@google/genai';
import { parseSseData } from '@yourtool/core/adapter';
import type { GeminiResponseLike } from '../codec/response.js';

/**
 * The SDK's own error for an error object inside a stream (`throwIfStreamErrorChunk` of
 * `@google/genai`): a JSON object whose `error` is an object with a numeric `code` from 400 to
 * 599 is an `ApiError` with that status and the message `got status: <status>. <json>`, which
 * the codec's error mapping reads like any other Google error. Anything else is not an error.
 */
export function streamErrorOf(parsed: unknown): ApiError | undefined {
  if (parsed === null || typeof parsed !== 'object' || !('error' in parsed)) return undefined;
  const error = (parsed as { error: unknown }).error;
  if (error === null || typeof error !== 'object') return undefined;
  const { code, status } = error as { code?: unknown; status?: unknown };
  if (typeof code !== 'number' || code < 400 || code >= 600) return undefined;
  return new ApiError({
    message: `got status: ${status}. ${JSON.stringify(parsed)}`,
    status: code,
  });
}

/**
 * Parses one `data:` event of a Gemini stream exactly as `@google/genai`'s
 * `generateContentStream` turned it into a `GenerateContentResponse`, as far as the stream
 * mapper and the continuation logic read it:
 *
 * - data that is not JSON fails the read with core's `MalformedStreamError` (a `server_error`
 *   naming the line; the SDK threw a `SyntaxError`, also a `server_error`);
 * - an error object ({@link streamErrorOf}) throws the SDK's `ApiError`;
 * - a value that is not an object is an empty chunk;
 * - Gemini API (not Vertex): the SDK's response converter keeps a fixed list of candidate fields,
 *   and `finishMessage` is not among them, so it is dropped; the first candidate is an object
 *   even when the server sent `null`; a `null` `finishReason` is no finish reason.
 *
 * The other fields are left as sent: the SDK drops some the mapper never reads, and adds
 * `sdkHttpResponse` (headers), which nothing here reads either.
 */
export function parseGeminiEvent(data: string, line: number, vertex: boolean): GeminiResponseLike {
  const parsed = parseSseData(data, '', line);
  const error = streamErrorOf(parsed);
  if (error) throw error;
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
  const chunk = parsed as GeminiResponseLike;
  if (!vertex) fromGeminiApi(chunk);
  return chunk;
}

/** What the SDK's Gemini API converter (`candidateFromMldev`) leaves of the first candidate. */
function fromGeminiApi(chunk: GeminiResponseLike): void {
  const candidates = chunk.candidates as unknown;
  if (!Array.isArray(candidates) || candidates.length === 0) return;
  const first: unknown = candidates[0];
  if (first === null || typeof first !== 'object') {
    candidates[0] = {};
    return;
  }
  const fields = first as Record<string, unknown>;
  if ('finishMessage' in fields || fields.finishReason === null) {
    const { finishMessage: _dropped, ...kept } = fields;
    if (kept.finishReason === null) delete kept.finishReason;
    candidates[0] = kept;
  }
}
