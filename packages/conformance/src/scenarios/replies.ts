import { expect } from 'vitest';
import { collectCheckedStream, completeEvent, pickUsage, streamedText } from '../assertions.js';
import { EXPECTED, TEST_IMAGE_URL, TEST_PNG_BASE64 } from '../catalog.js';
import type { ScenarioKit } from '../kit.js';

/** Plain replies: text, streamed text, a multi-turn history, system text and sampling options. */
export function registerReplyScenarios(kit: ScenarioKit): void {
  kit.scenario('text', () => textReply(kit));
  kit.scenario('text-stream', () => textStream(kit));
  kit.scenario('multi-turn', () => multiTurn(kit));
  kit.scenario('system-prompt', () => systemPrompt(kit));
  kit.scenario('sampling', () => sampling(kit));
}

/** Images in the user's message: base64 and URL. */
export function registerImageScenario(kit: ScenarioKit): void {
  kit.scenario('images', () => images(kit));
}

/** Structured output and cached-token usage, whole and streamed. */
export function registerStructuredAndUsageScenarios(kit: ScenarioKit): void {
  kit.scenario('structured-output', () => structuredOutput(kit));
  kit.scenario('usage-cached', () => usageCached(kit));
  kit.scenario('usage-cached-stream', () => usageCachedStream(kit));
}

/** The path of the last request the adapter sent. */
const lastPath = (kit: ScenarioKit): string => kit.server().requests.at(-1)?.path ?? '';

async function textReply(kit: ScenarioKit): Promise<void> {
  const { setup, request, user, wire, model, body } = kit;
  const s = setup('text');
  const req = request({ messages: [user(s, EXPECTED.text.prompt)] });
  const res = await s.adapter.complete(req);
  expect(res.content, 'content of a plain text reply').toEqual([
    { type: 'text', text: EXPECTED.text.reply },
  ]);
  expect(res.stop_reason, 'map the provider\'s "end of turn" stop reason to end_turn').toBe(
    'end_turn',
  );
  expect(pickUsage(res.usage), 'usage mapping').toEqual(EXPECTED.text.usage);
  expect(res.request_id).toBe(req.request_id);
  expect(res.model, 'response.model is the canonical id').toBe(model);
  expect(res.provider).toBe(s.adapter.name);
  expect(kit.server().requests).toHaveLength(1);
  expect(wire.stream(body(), lastPath(kit)), 'complete() must not ask for a stream').toBe(false);
}

async function textStream(kit: ScenarioKit): Promise<void> {
  const { setup, request, user, wire, model, body } = kit;
  const s = setup('text-stream');
  const req = request({ messages: [user(s, EXPECTED.text.prompt)], stream: true });
  const { events, error } = await collectCheckedStream(s.adapter.stream(req));
  expect(error, 'the stream failed').toBeUndefined();
  expect(events[0]).toMatchObject({
    type: 'message.start',
    request_id: req.request_id,
    model,
    provider: s.adapter.name,
  });
  const deltas = events.filter((e) => e.type === 'text.delta');
  expect(
    deltas.length,
    'text arrives as several text.delta events, not one',
  ).toBeGreaterThanOrEqual(2);
  expect(streamedText(events)).toBe(EXPECTED.text.reply);
  const done = completeEvent(events);
  expect(done.final_content).toEqual([{ type: 'text', text: EXPECTED.text.reply }]);
  expect(done.stop_reason).toBe('end_turn');
  expect(
    pickUsage(done.usage),
    'streamed usage must equal the non-streamed usage (ask the provider for it)',
  ).toEqual(EXPECTED.text.usage);
  expect(wire.stream(body(), lastPath(kit)), 'stream() must ask for a stream').toBe(true);
}

async function multiTurn(kit: ScenarioKit): Promise<void> {
  const { setup, request, user, assistant, wire, body } = kit;
  const s = setup('multi-turn');
  const history = [
    user(s, EXPECTED.multiTurn.firstQuestion),
    assistant(s, [{ type: 'text', text: EXPECTED.multiTurn.firstAnswer }]),
    user(s, EXPECTED.multiTurn.secondQuestion),
  ];
  const res = await s.adapter.complete(request({ messages: history }));
  expect(res.content).toEqual([{ type: 'text', text: EXPECTED.multiTurn.reply }]);
  expect(pickUsage(res.usage)).toEqual(EXPECTED.multiTurn.usage);
  const sent = body();
  expect(wire.roles(sent), 'history roles on the wire').toEqual(['user', 'assistant', 'user']);
  expect(wire.texts(sent), 'history texts on the wire, in order').toEqual([
    EXPECTED.multiTurn.firstQuestion,
    EXPECTED.multiTurn.firstAnswer,
    EXPECTED.multiTurn.secondQuestion,
  ]);
}

async function systemPrompt(kit: ScenarioKit): Promise<void> {
  const { setup, request, user, system, wire, body } = kit;
  const s = setup('system-prompt');
  const [first, second] = EXPECTED.system.systemMessages;
  const res = await s.adapter.complete(
    request({
      system_prompt: EXPECTED.system.systemPrompt,
      messages: [system(s, first), user(s, EXPECTED.system.prompt), system(s, second)],
    }),
  );
  expect(res.content).toEqual([{ type: 'text', text: EXPECTED.system.reply }]);
  const sent = body();
  expect(
    wire.systemText(sent),
    'system_prompt first, then every SYSTEM message, joined with "\\n\\n" (use core prepareHistory)',
  ).toBe([EXPECTED.system.systemPrompt, first, second].join('\n\n'));
  expect(wire.roles(sent), 'SYSTEM messages must not stay in the conversation').toEqual(['user']);
}

async function sampling(kit: ScenarioKit): Promise<void> {
  const { setup, request, user, features, wire, body } = kit;
  const s = setup('sampling');
  const res = await s.adapter.complete(
    request({
      messages: [user(s, EXPECTED.sampling.prompt)],
      stop_sequences: [...EXPECTED.sampling.stopSequences],
      temperature: EXPECTED.sampling.temperature,
      max_output_tokens: EXPECTED.sampling.maxOutputTokens,
    }),
  );
  expect(res.content).toEqual([{ type: 'text', text: EXPECTED.sampling.reply }]);
  if (features.stopSequenceHit === 'reported') {
    expect(res.stop_reason, 'a stop sequence hit maps to stop_sequence').toBe('stop_sequence');
  } else {
    expect(
      res.stop_reason,
      'the provider does not say a stop sequence matched: report end_turn, never a guess',
    ).toBe('end_turn');
  }
  const sent = body();
  expect(wire.maxOutputTokens(sent), 'max_output_tokens must reach the wire').toBe(
    EXPECTED.sampling.maxOutputTokens,
  );
  if (features.stopSequences === 'sent') {
    expect(wire.stopSequences(sent), 'stop_sequences must reach the wire').toEqual(
      EXPECTED.sampling.stopSequences,
    );
  } else {
    expect(
      wire.stopSequences(sent) ?? [],
      'this model refuses stop sequences: leave them out and cut the reply yourself',
    ).toEqual([]);
  }
  if (features.temperature === 'sent') {
    expect(wire.temperature(sent), 'temperature must reach the wire').toBe(
      EXPECTED.sampling.temperature,
    );
  } else {
    expect(
      wire.temperature(sent),
      'this provider refuses temperature: leave it out',
    ).toBeUndefined();
    expect(
      s.logger.warnings().some((w) => JSON.stringify(w).includes('temperature')),
      'leaving temperature out must be logged at WARN',
    ).toBe(true);
  }
}

async function images(kit: ScenarioKit): Promise<void> {
  const { setup, request, user, features, wire, body } = kit;
  const s = setup('images');
  const res = await s.adapter.complete(
    request({
      messages: [
        user(s, [
          { type: 'text', text: EXPECTED.images.prompt },
          {
            type: 'image',
            source: { kind: 'base64', data: TEST_PNG_BASE64 },
            media_type: 'image/png',
          },
          {
            type: 'image',
            source: { kind: 'url', data: TEST_IMAGE_URL },
            media_type: 'image/jpeg',
          },
        ]),
      ],
    }),
  );
  expect(res.content).toEqual([{ type: 'text', text: EXPECTED.images.reply }]);
  if (features.urlImages === 'sent') {
    expect(wire.imageCount(body()), 'a base64 and a URL image').toBe(2);
    expect(JSON.stringify(body())).toContain(TEST_IMAGE_URL);
  } else {
    expect(wire.imageCount(body()), 'the base64 image only: the provider takes no URLs').toBe(1);
    expect(JSON.stringify(body()), 'a URL image must not reach the wire').not.toContain(
      TEST_IMAGE_URL,
    );
    expect(
      s.logger
        .warnings()
        .some((w) => w.obj.event === 'block_dropped' && w.obj.block_type === 'image'),
      'leaving the URL image out must be logged at WARN (block_dropped)',
    ).toBe(true);
  }
}

async function structuredOutput(kit: ScenarioKit): Promise<void> {
  const { setup, request, user, wire, body } = kit;
  const s = setup('structured-output');
  const res = await s.adapter.complete(
    request({
      messages: [user(s, EXPECTED.structured.prompt)],
      output_schema: EXPECTED.structured.schema,
    }),
  );
  expect(res.content).toEqual([{ type: 'text', text: EXPECTED.structured.reply }]);
  expect(JSON.parse(EXPECTED.structured.reply)).toEqual({ city: 'Paris', population: 2102650 });
  expect(wire.outputSchema(body()), 'output_schema must reach the wire').toEqual(
    EXPECTED.structured.schema,
  );
}

async function usageCached(kit: ScenarioKit): Promise<void> {
  const { setup, request, user } = kit;
  const s = setup('usage-cached');
  const res = await s.adapter.complete(
    request({ messages: [user(s, EXPECTED.usageCached.prompt)] }),
  );
  expect(res.content).toEqual([{ type: 'text', text: EXPECTED.usageCached.reply }]);
  expect(
    pickUsage(res.usage),
    'cache reads go to cached_input_tokens, cache writes to cache_creation_input_tokens; input_tokens excludes both',
  ).toEqual(EXPECTED.usageCached.usage);
}

async function usageCachedStream(kit: ScenarioKit): Promise<void> {
  const { setup, request, user } = kit;
  const s = setup('usage-cached-stream');
  const { events, error } = await collectCheckedStream(
    s.adapter.stream(request({ messages: [user(s, EXPECTED.usageCached.prompt)], stream: true })),
  );
  expect(error).toBeUndefined();
  expect(
    pickUsage(completeEvent(events).usage),
    'streaming usage must equal non-streaming usage',
  ).toEqual(EXPECTED.usageCached.usage);
}
