import type { ContentBlock } from '@yourtool/core';
import { expect } from 'vitest';
import { collectCheckedStream, completeEvent, pickUsage } from '../assertions.js';
import { EXPECTED } from '../catalog.js';
import type { ConformanceFeatures, ScenarioKit } from '../kit.js';

/** Thinking in replies, whole and streamed, and replayed to the same model. */
export function registerThinkingScenarios(kit: ScenarioKit): void {
  kit.scenario('thinking', () => thinking(kit));
  kit.scenario('thinking-stream', () => thinkingStream(kit));
  kit.scenario('thinking-replay', () => thinkingReplay(kit));
}

/** The thinking blocks of the expected reply: signed or not, with redacted thinking or not. */
function thinkingBlocks(features: ConformanceFeatures): ContentBlock[] {
  return [
    features.signedThinking
      ? {
          type: 'thinking',
          text: EXPECTED.thinking.thinking,
          signature: EXPECTED.thinking.signature,
        }
      : { type: 'thinking', text: EXPECTED.thinking.thinking },
    ...(features.redactedThinking
      ? [{ type: 'redacted_thinking', data: EXPECTED.thinking.redacted } as const]
      : []),
  ];
}

const expectedThinking = (features: ConformanceFeatures): ContentBlock[] => [
  ...thinkingBlocks(features),
  { type: 'text', text: EXPECTED.thinking.reply },
];

async function thinking(kit: ScenarioKit): Promise<void> {
  const { setup, request, user } = kit;
  const s = setup('thinking');
  const res = await s.adapter.complete(request({ messages: [user(s, EXPECTED.thinking.prompt)] }));
  expect(res.content, 'thinking, redacted thinking and text, in order').toEqual(
    expectedThinking(kit.features),
  );
  expect(pickUsage(res.usage)).toEqual(EXPECTED.thinking.usage);
}

async function thinkingStream(kit: ScenarioKit): Promise<void> {
  const { setup, request, user, features } = kit;
  const s = setup('thinking-stream');
  const { events, error } = await collectCheckedStream(
    s.adapter.stream(request({ messages: [user(s, EXPECTED.thinking.prompt)], stream: true })),
  );
  expect(error).toBeUndefined();
  const deltas = events.filter((e) => e.type === 'thinking.delta');
  expect(deltas.length, 'thinking arrives as thinking.delta events').toBeGreaterThanOrEqual(2);
  if (features.signedThinking) {
    expect(deltas.at(-1), 'the signature rides on the last thinking.delta').toMatchObject({
      signature: EXPECTED.thinking.signature,
    });
  }
  expect(completeEvent(events).final_content).toEqual(expectedThinking(features));
}

async function thinkingReplay(kit: ScenarioKit): Promise<void> {
  const { setup, request, user, assistant, toolResult, tools, features, body } = kit;
  const s = setup('thinking-replay');
  const id = 'tu_01JZ0000000000000000000003';
  const res = await s.adapter.complete(
    request({
      messages: [
        user(s, 'Read README.md'),
        assistant(s, [
          ...thinkingBlocks(features),
          { type: 'tool_use', id, name: 'read_file', input: { path: 'README.md' } },
        ]),
        toolResult(s, id, [{ type: 'text', text: '# Readme' }]),
      ],
      tools: [tools.read_file],
    }),
  );
  expect(res.content).toEqual([{ type: 'text', text: EXPECTED.replyAfterHistory.reply }]);
  const sent = JSON.stringify(body());
  if (features.signedThinking) {
    expect(sent, 'thinking from the same model goes back with its signature').toContain(
      EXPECTED.thinking.signature,
    );
  }
  if (features.redactedThinking) {
    expect(sent, 'redacted thinking from the same model goes back').toContain(
      EXPECTED.thinking.redacted,
    );
  }
  expect(
    s.logger.warnings().filter((w) => w.obj.event === 'block_dropped'),
    'nothing should be dropped when replaying to the same model',
  ).toEqual([]);
}
