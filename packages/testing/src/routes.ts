import type { WireFormat } from '@yourtool/wire-formats';

/** What a request path asks for. */
export type Route =
  /** A model call in one wire format. */
  | { kind: 'model'; format: WireFormat; stream: boolean }
  /** Ollama model metadata: answered from the provider's options, never from the script. */
  | { kind: 'ollama-show' }
  | { kind: 'ollama-tags' }
  | { kind: 'ollama-version' }
  /** A path no wire format serves. */
  | { kind: 'unknown' };

const streamFlag = (body: unknown): unknown =>
  body !== null && typeof body === 'object' ? (body as { stream?: unknown }).stream : undefined;

/**
 * Routes by path, whatever prefix a base URL adds (`/v1`, `/api/v1`, Azure's deployment
 * path): the path's ending names the wire format, and the body's `stream` flag (Gemini and
 * Bedrock: the method in the path) whether the reply is streamed. Ollama streams unless told
 * not to. Vertex AI's routes are served too: Claude's `…/publishers/anthropic/models/{m}:rawPredict`
 * (`:streamRawPredict`) in the Anthropic format, Gemini's `…/publishers/google/models/{m}:generateContent`
 * (`:streamGenerateContent`) in the Gemini format.
 */
export function routeRequest(method: string, url: string, body: unknown): Route {
  const path = url.split('?')[0] ?? url;
  if (method === 'GET') {
    if (path === '/api/tags') return { kind: 'ollama-tags' };
    if (path === '/api/version') return { kind: 'ollama-version' };
    return { kind: 'unknown' };
  }
  if (method !== 'POST') return { kind: 'unknown' };
  const stream = streamFlag(body);
  if (path.endsWith('/v1/messages')) {
    return { kind: 'model', format: 'anthropic', stream: stream === true };
  }
  // Claude on Vertex AI: the Anthropic format at the model's path, streamed by method
  const vertexClaude = /\/publishers\/anthropic\/models\/[^/]+:(rawPredict|streamRawPredict)$/.exec(
    path,
  );
  if (vertexClaude) {
    return { kind: 'model', format: 'anthropic', stream: vertexClaude[1] === 'streamRawPredict' };
  }
  if (path.endsWith('/chat/completions')) {
    return { kind: 'model', format: 'openai-chat', stream: stream === true };
  }
  if (path.endsWith('/responses')) {
    return { kind: 'model', format: 'openai-responses', stream: stream === true };
  }
  const gemini = /\/models\/[^/]+:(generateContent|streamGenerateContent)$/.exec(path);
  if (gemini) {
    return { kind: 'model', format: 'gemini', stream: gemini[1] === 'streamGenerateContent' };
  }
  const bedrock = /\/model\/[^/]+\/(converse|converse-stream)$/.exec(path);
  if (bedrock) {
    return { kind: 'model', format: 'bedrock', stream: bedrock[1] === 'converse-stream' };
  }
  if (path === '/api/chat') return { kind: 'model', format: 'ollama', stream: stream !== false };
  if (path === '/api/show') return { kind: 'ollama-show' };
  return { kind: 'unknown' };
}
