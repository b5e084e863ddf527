import {
  type ContentBlock,
  conformsToToolIdRules,
  deriveProviderToolId,
  type Message,
  newToolUseId,
  type StreamEvent,
  ToolIdMap,
} from '@yourtool/core';
import { fitsToolNameRules } from '@yourtool/core/adapter';
import { expect } from 'vitest';
import { collectCheckedStream, completeEvent, pickUsage } from '../assertions.js';
import { EXPECTED, TEST_PNG_BASE64 } from '../catalog.js';
import type { ScenarioKit } from '../kit.js';
import { expectAlternatingRoles } from './shared.js';

/** Tool calls, whole and streamed, and tool results sent back. */
export function registerToolScenarios(kit: ScenarioKit): void {
  kit.scenario('tool-call', () => toolCall(kit));
  kit.scenario('tool-call-stream', () => toolCallStream(kit));
  kit.scenario('parallel-tool-calls', () => parallelToolCalls(kit));
  kit.scenario('tool-call-no-args', () => toolCallNoArgs(kit));
  kit.scenario('tool-result-error', () => toolResultError(kit));
  kit.scenario('tool-result-image', () => toolResultImage(kit));
}

/** A tool use in the history that was never answered. */
export function registerUnansweredToolUseScenario(kit: ScenarioKit): void {
  kit.scenario('unanswered-tool-use', () => unansweredToolUse(kit));
}

/** Tool uses in the history under names the provider does not accept. */
export function registerToolNameInHistoryScenario(kit: ScenarioKit): void {
  kit.scenario('tool-name-in-history', () => toolNameInHistory(kit));
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

async function toolCall(kit: ScenarioKit): Promise<void> {
  const { setup, request, user, tools, wire, body } = kit;
  const s = setup('tool-call');
  const toolIdMap = new ToolIdMap();
  const res = await s.adapter.complete(
    request({ messages: [user(s, EXPECTED.toolCall.prompt)], tools: [tools.read_file] }),
    { toolIdMap },
  );
  expect(res.content).toEqual([
    { type: 'text', text: EXPECTED.toolCall.text },
    {
      type: 'tool_use',
      id: expect.stringMatching(/^tu_[0-9A-Z]{26}$/),
      name: EXPECTED.toolCall.tool,
      input: EXPECTED.toolCall.input,
    },
  ]);
  expect(res.stop_reason, 'a tool call maps to stop_reason tool_use').toBe('tool_use');
  expect(pickUsage(res.usage)).toEqual(EXPECTED.toolCall.usage);
  const toolUse = res.content[1] as Extract<ContentBlock, { type: 'tool_use' }>;
  if (kit.wireToolIds) {
    expect(
      toolIdMap.getProviderId(s.adapter.name, toolUse.id),
      'the provider id must be linked to the canonical id in the ToolIdMap passed in CallOptions',
    ).toBeTruthy();
  }
  expect(wire.toolNames(body()), 'tool definitions on the wire').toEqual(['read_file']);
}

/** The input fragments of a streamed tool call: one whole, or raw provider pieces. */
function expectToolInputFragments(kit: ScenarioKit, events: StreamEvent[]): void {
  const fragments = events.flatMap((e) =>
    e.type === 'tool.use_input_delta' ? [e.partial_json] : [],
  );
  if (kit.features.wholeToolCalls) {
    expect(
      fragments,
      'a tool call the provider sends whole is one tool.use_input_delta with its complete input JSON',
    ).toHaveLength(1);
    expect(JSON.parse(fragments[0] ?? '')).toEqual(EXPECTED.toolCall.input);
  } else {
    expect(
      fragments.length,
      'the fixture splits the input into fragments; each must be its own event',
    ).toBeGreaterThanOrEqual(2);
    expect(fragments.every((f) => typeof f === 'string')).toBe(true);
    expect(JSON.parse(fragments.join(''))).toEqual(EXPECTED.toolCall.input);
    expect(
      fragments.some((f) => !isJson(f)),
      'partial_json must be the raw provider fragments, not re-serialized or parsed pieces',
    ).toBe(true);
  }
}

async function toolCallStream(kit: ScenarioKit): Promise<void> {
  const { setup, request, user, tools } = kit;
  const s = setup('tool-call-stream');
  const toolIdMap = new ToolIdMap();
  const { events, error } = await collectCheckedStream(
    s.adapter.stream(
      request({
        messages: [user(s, EXPECTED.toolCall.prompt)],
        tools: [tools.read_file],
        stream: true,
      }),
      { toolIdMap },
    ),
  );
  expect(error).toBeUndefined();
  const start = events.find((e) => e.type === 'tool.use_start');
  expect(start, 'tool.use_start').toMatchObject({
    tool_use_id: expect.stringMatching(/^tu_/),
    tool_name: 'read_file',
  });
  expectToolInputFragments(kit, events);
  const end = events.find((e) => e.type === 'tool.use_end');
  expect(end).toMatchObject({
    tool_use_id: start?.type === 'tool.use_start' ? start.tool_use_id : '',
    final_input: EXPECTED.toolCall.input,
  });
  const done = completeEvent(events);
  expect(done.stop_reason).toBe('tool_use');
  expect(done.final_content).toEqual([
    { type: 'text', text: EXPECTED.toolCall.text },
    {
      type: 'tool_use',
      id: start?.type === 'tool.use_start' ? start.tool_use_id : '',
      name: 'read_file',
      input: EXPECTED.toolCall.input,
    },
  ]);
  expect(pickUsage(done.usage)).toEqual(EXPECTED.toolCall.usage);
}

async function parallelToolCalls(kit: ScenarioKit): Promise<void> {
  const { setup, request, user, tools } = kit;
  const s = setup('parallel-tool-calls');
  const { events, error } = await collectCheckedStream(
    s.adapter.stream(
      request({
        messages: [user(s, EXPECTED.parallelToolCalls.prompt)],
        tools: [tools.read_file],
        stream: true,
      }),
    ),
  );
  expect(error).toBeUndefined();
  const starts = events.filter((e) => e.type === 'tool.use_start');
  const ends = events.filter((e) => e.type === 'tool.use_end');
  expect(starts, 'two tool.use_start events').toHaveLength(2);
  expect(ends.map((e) => e.type === 'tool.use_end' && e.final_input)).toEqual(
    EXPECTED.parallelToolCalls.inputs,
  );
  const done = completeEvent(events);
  const uses = done.final_content.filter((b) => b.type === 'tool_use');
  expect(uses.map((u) => u.type === 'tool_use' && u.input)).toEqual(
    EXPECTED.parallelToolCalls.inputs,
  );
  expect(
    new Set(uses.map((u) => u.type === 'tool_use' && u.id)).size,
    'distinct canonical ids',
  ).toBe(2);
  expect(done.stop_reason).toBe('tool_use');
  expect(pickUsage(done.usage)).toEqual(EXPECTED.parallelToolCalls.usage);
}

async function toolCallNoArgs(kit: ScenarioKit): Promise<void> {
  const { setup, request, user, tools } = kit;
  const s = setup('tool-call-no-args');
  const { events, error } = await collectCheckedStream(
    s.adapter.stream(
      request({
        messages: [user(s, EXPECTED.noArgs.prompt)],
        tools: [tools.get_time],
        stream: true,
      }),
    ),
  );
  expect(error).toBeUndefined();
  expect(
    events.find((e) => e.type === 'tool.use_end'),
    'a tool use without arguments ends with final_input {}',
  ).toMatchObject({
    final_input: {},
  });
  const done = completeEvent(events);
  expect(done.final_content.filter((b) => b.type === 'tool_use')).toEqual([
    { type: 'tool_use', id: expect.stringMatching(/^tu_/), name: 'get_time', input: {} },
  ]);
}

async function toolResultError(kit: ScenarioKit): Promise<void> {
  const { setup, request, user, assistant, toolResult, tools, wire, body } = kit;
  const s = setup('tool-result-error');
  const toolIdMap = new ToolIdMap();
  const call = assistant(s, [
    {
      type: 'tool_use',
      id: 'tu_01JZ0000000000000000000001',
      name: 'read_file',
      input: { path: 'NOTES.md' },
    },
  ]);
  // an id this provider could have issued: the suite's own, or one shaped by its rules
  const seeded = conformsToToolIdRules('seed_call_01', kit.toolIdRules)
    ? 'seed_call_01'
    : deriveProviderToolId('seed_call_01', kit.toolIdRules);
  toolIdMap.set({
    canonical_id: 'tu_01JZ0000000000000000000001',
    provider: kit.provider,
    provider_id: seeded,
  });
  const res = await s.adapter.complete(
    request({
      messages: [
        user(s, 'Read NOTES.md'),
        call,
        toolResult(
          s,
          'tu_01JZ0000000000000000000001',
          [{ type: 'text', text: EXPECTED.toolResultError.errorText }],
          true,
        ),
      ],
      tools: [tools.read_file],
    }),
    { toolIdMap },
  );
  expect(res.content).toEqual([{ type: 'text', text: EXPECTED.toolResultError.reply }]);
  const sent = body();
  const results = wire.toolResults(sent);
  expect(results, 'one tool result on the wire').toHaveLength(1);
  expect(results[0]?.isError, 'is_error must reach the wire').toBe(true);
  expect(results[0]?.text).toContain(EXPECTED.toolResultError.errorText);
  if (kit.wireToolIds) {
    expect(
      wire.toolCalls(sent).map((c) => c.id),
      "a call from this provider goes back under the provider's own id",
    ).toEqual([seeded]);
    expect(results[0]?.id, 'the result answers that id').toBe(seeded);
  }
}

async function toolResultImage(kit: ScenarioKit): Promise<void> {
  const { setup, request, user, assistant, toolResult, tools, wire, body } = kit;
  const s = setup('tool-result-image');
  const id = 'tu_01JZ0000000000000000000002';
  const res = await s.adapter.complete(
    request({
      messages: [
        user(s, 'Chart the series 1, 2, 3.'),
        assistant(s, [
          { type: 'tool_use', id, name: 'render_chart', input: { series: [1, 2, 3] } },
        ]),
        toolResult(s, id, [
          { type: 'text', text: EXPECTED.toolResultImage.resultText },
          {
            type: 'image',
            source: { kind: 'base64', data: TEST_PNG_BASE64 },
            media_type: 'image/png',
          },
        ]),
      ],
      tools: [tools.render_chart],
    }),
  );
  expect(res.content).toEqual([{ type: 'text', text: EXPECTED.toolResultImage.reply }]);
  const sent = body();
  expect(wire.toolResults(sent)[0]?.text).toContain(EXPECTED.toolResultImage.resultText);
  expect(wire.imageCount(sent), "the tool result's image must reach the wire").toBe(1);
}

async function unansweredToolUse(kit: ScenarioKit): Promise<void> {
  const { setup, request, user, assistant, tools, wire, body, model } = kit;
  const s = setup('unanswered-tool-use');
  const id = 'tu_01JZ0000000000000000000004';
  const res = await s.adapter.complete(
    request({
      messages: [
        user(s, 'Read README.md'),
        assistant(
          s,
          [{ type: 'tool_use', id, name: 'read_file', input: { path: 'README.md' } }],
          model,
          { status: 'cancelled' },
        ),
        user(s, 'Never mind, just say done.'),
      ],
      tools: [tools.read_file],
    }),
  );
  expect(res.content).toEqual([{ type: 'text', text: EXPECTED.replyAfterHistory.reply }]);
  const sent = body();
  const calls = wire.toolCalls(sent);
  const results = wire.toolResults(sent);
  expect(
    results.length,
    'every tool call on the wire needs a result (insert one saying none was recorded)',
  ).toBe(calls.length);
  if (kit.wireToolIds) expect(results.map((r) => r.id)).toEqual(calls.map((c) => c.id));
  expect(
    s.logger.warnings().some((w) => w.obj.event === 'history_repaired'),
    'the repair must be logged at WARN',
  ).toBe(true);
  if (kit.alternatingRoles) expectAlternatingRoles(wire.roles(sent));
}

async function toolNameInHistory(kit: ScenarioKit): Promise<void> {
  const { setup, request, user, assistant, toolResult, wire, body } = kit;
  const s = setup('tool-name-in-history', { fixtureOf: 'capability-honesty' });
  const foreign = ['fs.read', `server.${'tool'.repeat(20)}`];
  const messages: Message[] = [user(s, 'Read both.')];
  const ids = foreign.map(() => newToolUseId());
  messages.push(
    assistant(
      s,
      foreign.map((name, i) => ({
        type: 'tool_use' as const,
        id: ids[i] as string,
        name,
        input: { path: 'README.md' },
      })),
    ),
  );
  foreign.forEach((_, i) => {
    messages.push(toolResult(s, ids[i] as string, [{ type: 'text', text: '# Project Foo' }]));
  });
  messages.push(user(s, 'Again.'));
  const res = await s.adapter.complete(request({ messages }));
  expect(res.content).toEqual([{ type: 'text', text: EXPECTED.replyAfterHistory.reply }]);
  const sent = wire.toolCalls(body()).map((c) => c.name);
  expect(sent, 'both tool uses of the history are sent').toHaveLength(2);
  for (const name of sent) {
    expect(
      fitsToolNameRules(name, kit.toolNameRules),
      `tool name "${name}" on the wire must fit the provider's rule (derive it with core's wireToolName)`,
    ).toBe(true);
  }
  expect(new Set(sent).size, 'two names stay two names').toBe(2);
}
