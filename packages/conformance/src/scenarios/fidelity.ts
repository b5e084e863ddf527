import { type ContentBlock, ToolIdMap } from '@yourtool/core';
import { expect } from 'vitest';
import { collectCheckedStream, completeEvent, pickUsage, streamedText } from '../assertions.js';
import { EXPECTED } from '../catalog.js';
import type { ScenarioKit } from '../kit.js';
import { replyCalling } from './tool-name-mapping.js';

const texts = (content: readonly ContentBlock[]): string[] =>
  content.flatMap((b) => (b.type === 'text' && b.text !== '' ? [b.text] : []));

/**
 * Replies that are unusual but legal, which an adapter must hand over whole and recorded right:
 * an empty reply cut at the limit, a tool name outside the canonical rule, interleaved tool
 * fragments, typed content parts, refusals, a served model other than the requested one, and a
 * streamed tool name outside the canonical rule.
 */
export function registerFidelityScenarios(kit: ScenarioKit): void {
  const { scenario, features } = kit;
  scenario('empty-reply-length', () => emptyReplyLength(kit));
  scenario('tool-name-outside-rule', () => toolNameOutsideRule(kit));
  scenario(
    'interleaved-tool-fragments',
    () => interleavedToolFragments(kit),
    15_000,
    features.interleavedToolFragments
      ? undefined
      : 'the wire format sends parallel tool calls one after another',
  );
  const typedPartsUnsupported = features.typedContentParts
    ? undefined
    : 'the wire format has no typed content parts in replies';
  scenario('typed-content-parts', () => typedContentParts(kit), 15_000, typedPartsUnsupported);
  scenario(
    'typed-content-parts-stream',
    () => typedContentPartsStream(kit),
    15_000,
    typedPartsUnsupported,
  );
  scenario(
    'refusal',
    () => refusal(kit),
    15_000,
    features.refusal === 'none' ? 'the provider has no way to report a refusal' : undefined,
  );
  scenario('served-model', () => servedModel(kit));
  scenario('served-model-stream', () => servedModelStream(kit));
  scenario('tool-name-outside-rule-stream', () => toolNameOutsideRuleStream(kit));
}

async function emptyReplyLength(kit: ScenarioKit): Promise<void> {
  const { setup, request, user } = kit;
  const s = setup('empty-reply-length');
  const res = await s.adapter.complete(
    request({
      messages: [user(s, EXPECTED.emptyLength.prompt)],
      max_output_tokens: EXPECTED.emptyLength.maxOutputTokens,
    }),
  );
  expect(texts(res.content), 'an empty reply carries no text').toEqual([]);
  expect(
    res.content.filter((b) => b.type === 'text' || b.type === 'tool_use'),
    'no empty text block is passed on',
  ).toEqual([]);
  expect(res.stop_reason, "the provider's length stop maps to max_tokens").toBe('max_tokens');
  expect(pickUsage(res.usage), 'the billed usage of an empty reply').toEqual(
    EXPECTED.emptyLength.usage,
  );
}

async function toolNameOutsideRule(kit: ScenarioKit): Promise<void> {
  const { setup, request, user } = kit;
  const s = setup('tool-name-outside-rule');
  const res = await s.adapter.complete(
    request({
      messages: [user(s, EXPECTED.foreignToolName.prompt)],
      tools: [kit.tools.read_file],
    }),
    { toolIdMap: new ToolIdMap() },
  );
  const uses = res.content.filter((b) => b.type === 'tool_use');
  expect(uses, 'the tool call is returned, with the name the model gave').toEqual([
    {
      type: 'tool_use',
      id: expect.stringMatching(/^tu_/),
      name: EXPECTED.foreignToolName.tool,
      input: EXPECTED.foreignToolName.input,
    },
  ]);
  expect(res.stop_reason).toBe('tool_use');
  expect(pickUsage(res.usage)).toEqual(EXPECTED.foreignToolName.usage);
}

async function interleavedToolFragments(kit: ScenarioKit): Promise<void> {
  const { setup, request, user } = kit;
  const s = setup('interleaved-tool-fragments');
  const { events, error } = await collectCheckedStream(
    s.adapter.stream(
      request({
        messages: [user(s, EXPECTED.interleaved.prompt)],
        tools: [kit.tools.read_file],
        stream: true,
      }),
    ),
  );
  expect(error).toBeUndefined();
  const ends = events.filter((e) => e.type === 'tool.use_end');
  expect(
    ends.map((e) => e.type === 'tool.use_end' && e.final_input),
    'each tool gets exactly one tool.use_end, with every fragment folded in, in index order',
  ).toEqual(EXPECTED.interleaved.inputs);
  const done = completeEvent(events);
  expect(done.final_content.flatMap((b) => (b.type === 'tool_use' ? [b.input] : []))).toEqual(
    EXPECTED.interleaved.inputs,
  );
  expect(done.stop_reason).toBe('tool_use');
  expect(pickUsage(done.usage)).toEqual(EXPECTED.interleaved.usage);
}

const expectedTypedParts = [
  { type: 'thinking', text: EXPECTED.typedParts.thinking },
  { type: 'text', text: EXPECTED.typedParts.reply },
];

/** Thinking blocks without their signature, to compare with {@link expectedTypedParts}. */
const unsigned = (content: readonly ContentBlock[]) =>
  content.map((b) => (b.type === 'thinking' ? { type: b.type, text: b.text } : b));

async function typedContentParts(kit: ScenarioKit): Promise<void> {
  const { setup, request, user } = kit;
  const s = setup('typed-content-parts');
  const res = await s.adapter.complete(
    request({ messages: [user(s, EXPECTED.typedParts.prompt)] }),
  );
  expect(
    unsigned(res.content),
    'typed parts are read as thinking and text, never as "[object Object]"',
  ).toEqual(expectedTypedParts);
  expect(pickUsage(res.usage)).toEqual(EXPECTED.typedParts.usage);
}

async function typedContentPartsStream(kit: ScenarioKit): Promise<void> {
  const { setup, request, user } = kit;
  const s = setup('typed-content-parts-stream');
  const { events, error } = await collectCheckedStream(
    s.adapter.stream(request({ messages: [user(s, EXPECTED.typedParts.prompt)], stream: true })),
  );
  expect(error).toBeUndefined();
  expect(streamedText(events)).toBe(EXPECTED.typedParts.reply);
  const done = completeEvent(events);
  expect(unsigned(done.final_content)).toEqual(expectedTypedParts);
  expect(pickUsage(done.usage)).toEqual(EXPECTED.typedParts.usage);
}

async function refusal(kit: ScenarioKit): Promise<void> {
  const { setup, request, user } = kit;
  const s = setup('refusal');
  const res = await s.adapter.complete(request({ messages: [user(s, EXPECTED.refusal.prompt)] }));
  expect(res.stop_reason, 'a refusal is stop_reason refusal, not end_turn').toBe('refusal');
  const said = texts(res.content);
  if (said.length > 0) expect(said.join('')).toBe(EXPECTED.refusal.reply);
  if (res.refusal != null) expect(res.refusal).toBe(EXPECTED.refusal.reply);
  expect(pickUsage(res.usage)).toEqual(EXPECTED.refusal.usage);
}

/** The canonical id of the model the provider says answered. */
const servedModelId = (kit: ScenarioKit) => `${kit.provider}:${EXPECTED.servedModel.name}`;

async function servedModel(kit: ScenarioKit): Promise<void> {
  const { setup, request, user, model } = kit;
  const s = setup('served-model');
  const res = await s.adapter.complete(
    request({ messages: [user(s, EXPECTED.servedModel.prompt)] }),
  );
  expect(res.model, 'response.model stays the requested id (routing keys on it)').toBe(model);
  expect(res.served_model, 'served_model: the model the provider says answered').toBe(
    servedModelId(kit),
  );
  expect(texts(res.content)).toEqual([EXPECTED.servedModel.reply]);
}

async function servedModelStream(kit: ScenarioKit): Promise<void> {
  const { setup, request, user, model } = kit;
  const s = setup('served-model-stream');
  const { events, error } = await collectCheckedStream(
    s.adapter.stream(request({ messages: [user(s, EXPECTED.servedModel.prompt)], stream: true })),
  );
  expect(error).toBeUndefined();
  expect(events[0]).toMatchObject({ type: 'message.start', model });
  const done = completeEvent(events);
  expect(done.served_model, 'message.complete.served_model').toBe(servedModelId(kit));
  expect(streamedText(events)).toBe(EXPECTED.servedModel.reply);
}

async function toolNameOutsideRuleStream(kit: ScenarioKit): Promise<void> {
  const { setup, request, user } = kit;
  const { tool, prompt } = EXPECTED.foreignToolName;
  // the streamed tool call, renamed: a stream every adapter already has a fixture for
  const s = setup('tool-name-outside-rule-stream', {
    responses: replyCalling(kit, 'tool-call-stream', tool),
  });
  const { events, error } = await collectCheckedStream(
    s.adapter.stream(
      request({ messages: [user(s, prompt)], tools: [kit.tools.read_file], stream: true }),
      { toolIdMap: new ToolIdMap() },
    ),
  );
  expect(error).toBeUndefined();
  expect(events.find((e) => e.type === 'tool.use_start')).toMatchObject({ tool_name: tool });
  const done = completeEvent(events);
  expect(done.stop_reason).toBe('tool_use');
  expect(
    done.final_content.filter((b) => b.type === 'tool_use'),
    'the streamed call keeps the name the model gave and gets an allocated tu_ id',
  ).toEqual([
    {
      type: 'tool_use',
      id: expect.stringMatching(/^tu_/),
      name: tool,
      input: EXPECTED.toolCall.input,
    },
  ]);
}
