/**
 * One Chat Completions stream chunk as an SSE event, as OpenAI writes it: a `gpt-5` chunk of
 * one choice with `delta` and no finish, for tests that build streams the recorded fixtures do
 * not hold (a burst written at once, a stream that never finishes).
 */
export function chatChunkEvent(delta: Record<string, unknown>): string {
  const chunk = {
    id: 'chatcmpl-built',
    object: 'chat.completion.chunk',
    created: 1763800013,
    model: 'gpt-5-2025-08-07',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: null }],
    usage: null,
  };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}
