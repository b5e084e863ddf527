import { expect } from 'vitest';
import { collectCheckedStream, completeEvent, streamedText } from '../assertions.js';
import { EXPECTED } from '../catalog.js';
import type { ScenarioKit } from '../kit.js';

/** A stop sequence inside the "text" reply, after its first streamed words. */
const STOP = 'help';

/**
 * Stop sequences the adapter emulates (`features.stopSequences: 'emulated'`), the rule the
 * OpenAI adapters' own stream tests used to check: through stream() too, the sequence stays off
 * the wire and no text from it on is ever emitted.
 */
export function registerStopSequenceScenarios(kit: ScenarioKit): void {
  kit.scenario(
    'stop-sequences-emulated-stream',
    () => emulatedStopStream(kit),
    15_000,
    kit.features.stopSequences === 'emulated'
      ? undefined
      : 'the provider stops at the sequence itself (features.stopSequences "sent"; `sampling` checks it is sent)',
  );
}

async function emulatedStopStream(kit: ScenarioKit): Promise<void> {
  const reply = EXPECTED.text.reply;
  const before = reply.slice(0, reply.indexOf(STOP));
  const s = kit.setup('stop-sequences-emulated-stream', { fixtureOf: 'text-stream' });
  const { events, error } = await collectCheckedStream(
    s.adapter.stream(
      kit.request({
        messages: [kit.user(s, EXPECTED.text.prompt)],
        stop_sequences: [STOP],
        stream: true,
      }),
    ),
  );
  expect(error, 'the stream failed').toBeUndefined();
  expect(
    kit.wire.stopSequences(kit.body()) ?? [],
    'this model refuses stop sequences: leave them out of the request',
  ).toEqual([]);
  expect(
    streamedText(events),
    `the text streams up to "${STOP}", and nothing from it on (hold back a possible start of it)`,
  ).toBe(before);
  const complete = completeEvent(events);
  expect(complete.final_content, 'the final content is cut there too').toEqual([
    { type: 'text', text: before },
  ]);
  expect(complete.stop_reason, 'the emulated stop is reported as stop_sequence').toBe(
    'stop_sequence',
  );
}
