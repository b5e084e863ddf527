import { collectCheckedStream, completeEvent } from '@yourtool/conformance';
import { createMessage, newRequestId, newSessionId } from '@yourtool/core';
import { describe, expect, it } from 'vitest';
import { DEFAULT_OLLAMA_HOST, OllamaAdapter } from '../src/index.js';

/**
 * An optional check against a real Ollama server: runs only when one answers on the default
 * host with a model that can chat (`OLLAMA_LIVE_MODEL`, else the first such model it lists),
 * and is skipped with the reason printed otherwise. CI never needs it.
 */
async function findLiveModel(): Promise<{ model: string } | { skip: string }> {
  const get = async (path: string, body?: unknown) => {
    const res = await fetch(`${DEFAULT_OLLAMA_HOST}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(2000),
    });
    if (!res.ok) throw new Error(`${path} answered ${res.status}`);
    return (await res.json()) as Record<string, unknown>;
  };
  try {
    await get('/api/version');
  } catch {
    return { skip: `no Ollama server answers on ${DEFAULT_OLLAMA_HOST}` };
  }
  try {
    const wanted = process.env.OLLAMA_LIVE_MODEL;
    if (wanted) return { model: `ollama:${wanted}` };
    const tags = (await get('/api/tags')).models as Array<{ name: string }> | undefined;
    for (const { name } of tags ?? []) {
      const show = await get('/api/show', { model: name });
      if ((show.capabilities as string[] | undefined)?.includes('completion') ?? true)
        return { model: `ollama:${name}` };
    }
    return { skip: `the Ollama server on ${DEFAULT_OLLAMA_HOST} has no chat model pulled` };
  } catch (error) {
    return { skip: `could not list the models of the Ollama server (${(error as Error).message})` };
  }
}

const live = await findLiveModel();

describe('live: a short chat against a local Ollama server', () => {
  if ('skip' in live) {
    console.info(`[ollama] live test skipped: ${live.skip}`);
    it.skip(`a short chat, streamed and not (skipped: ${live.skip})`, () => {});
    return;
  }
  it(`a short chat with ${live.model}, streamed and not`, async () => {
    const ollama = new OllamaAdapter({ base_url: DEFAULT_OLLAMA_HOST, max_retries: 0 });
    try {
      await ollama.detectCapabilities(live.model);
      const session_id = newSessionId();
      const messages = [
        createMessage({
          session_id,
          role: 'user',
          content: [{ type: 'text', text: 'Reply with the single word: pong' }],
        }),
      ];
      const reply = await ollama.complete({
        request_id: newRequestId(),
        model: live.model,
        max_output_tokens: 64,
        messages,
      });
      expect(reply.content.some((b) => b.type === 'text' && b.text.trim() !== '')).toBe(true);
      expect(reply.usage.input_tokens).toBeGreaterThan(0);
      expect(reply.usage.output_tokens).toBeGreaterThan(0);
      const { events, error } = await collectCheckedStream(
        ollama.stream({
          request_id: newRequestId(),
          model: live.model,
          max_output_tokens: 64,
          stream: true,
          messages,
        }),
      );
      expect(error).toBeUndefined();
      expect(['end_turn', 'max_tokens']).toContain(completeEvent(events).stop_reason);
    } finally {
      await ollama.close();
    }
  }, 180_000);
});
