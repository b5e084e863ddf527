import { createMessage, newRequestId, newSessionId } from '@yourtool/core';
import { expect, it } from 'vitest';
import { collectCheckedStream, completeEvent } from '../assertions.js';
import type { ScenarioKit } from '../kit.js';

type LiveMode = NonNullable<ScenarioKit['live']>;

/**
 * Live mode: a text reply and a tool call against the real provider, when the environment
 * variable the adapter names holds a key; skipped, saying why, otherwise.
 */
export function registerLiveScenario(kit: ScenarioKit): void {
  const { live } = kit;
  const key = live ? process.env[live.env] : undefined;
  if (!live || !key) {
    const why = live ? `${live.env} is not set` : 'no live mode configured';
    console.info(`[conformance] ${kit.name}: live mode skipped: ${why}`);
    it.skip(`live: a text reply and a tool call against the real provider (skipped: ${why})`, () => {});
  } else {
    it(
      'live: a text reply and a tool call against the real provider',
      () => liveRoundTrip(kit, live, key),
      60_000,
    );
  }
}

async function liveRoundTrip(kit: ScenarioKit, live: LiveMode, key: string): Promise<void> {
  const adapter = live.createAdapter(key);
  kit.closeAfterTest(adapter);
  const liveModel = live.model ?? kit.model;
  const session_id = newSessionId();
  const res = await adapter.complete({
    request_id: newRequestId(),
    model: liveModel,
    max_output_tokens: 256,
    messages: [
      createMessage({
        session_id,
        role: 'user',
        content: [{ type: 'text', text: 'Reply with the single word: pong' }],
      }),
    ],
  });
  expect(res.content.some((b) => b.type === 'text' && /pong/i.test(b.text))).toBe(true);
  expect(res.usage.input_tokens + res.usage.cached_input_tokens).toBeGreaterThan(0);
  const { events, error } = await collectCheckedStream(
    adapter.stream({
      request_id: newRequestId(),
      model: liveModel,
      max_output_tokens: 256,
      stream: true,
      tools: [kit.tools.read_file],
      messages: [
        createMessage({
          session_id,
          role: 'user',
          content: [{ type: 'text', text: 'Use read_file to read README.md.' }],
        }),
      ],
    }),
  );
  expect(error).toBeUndefined();
  expect(
    completeEvent(events).final_content.some(
      (b) => b.type === 'tool_use' && b.name === 'read_file',
    ),
  ).toBe(true);
}
