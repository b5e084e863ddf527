import {
  completeObject,
  OutputValidationError,
  type StructuredOutputPlan,
  type ToolChoice,
} from '@yourtool/core';
import { expect } from 'vitest';
import { EXPECTED } from '../catalog.js';
import type { ScenarioKit, Setup } from '../kit.js';
import { describeError } from './shared.js';

/** The native plan, and the forced-tool plan under the name the tool-call fixture calls. */
const NATIVE: StructuredOutputPlan = { mode: 'native' };
const TOOL: StructuredOutputPlan = { mode: 'tool', toolName: EXPECTED.toolCall.tool };

/** The text of a structured-object-cut fixture: the structured reply stopped mid-way. */
const CUT_REPLY = '{"city":"Paris","popul';

/** The object the tool-call fixture's call carries, as an output schema. */
const PATH_SCHEMA = {
  type: 'object',
  properties: { path: { type: 'string' } },
  required: ['path'],
  additionalProperties: false,
};

/**
 * Structured output through core's toolkit (completeObject) and the real adapter: native
 * objects (valid, invalid, cut, refused), the forced-tool fallback, and each tool_choice value.
 */
export function registerStructuredObjectScenarios(kit: ScenarioKit): void {
  const noRefusal =
    kit.features.refusal === 'none' ? 'the provider has no way to say it refused' : undefined;
  const noToolChoice = kit.wire.toolChoice
    ? undefined
    : "the adapter's wire inspector does not read tool_choice (WireInspector.toolChoice)";
  kit.scenario('structured-object', () => nativeObject(kit));
  kit.scenario('structured-object-invalid', () => nativeInvalid(kit));
  kit.scenario('structured-object-cut', () => nativeCut(kit));
  kit.scenario('structured-object-refusal', () => nativeRefusal(kit), undefined, noRefusal);
  kit.scenario('structured-tool', () => toolObject(kit), undefined, noToolChoice);
  kit.scenario('structured-tool-invalid', () => toolInvalid(kit));
  kit.scenario('structured-tool-missing', () => toolMissing(kit));
  kit.scenario('tool-choice', () => toolChoices(kit), undefined, noToolChoice);
}

/** What a call rejected with; fails unless it is an OutputValidationError. */
async function rejection(call: Promise<unknown>): Promise<OutputValidationError> {
  let caught: unknown;
  try {
    await call;
  } catch (error) {
    caught = error;
  }
  expect(caught, `expected OutputValidationError, got ${describeError(caught)}`).toBeInstanceOf(
    OutputValidationError,
  );
  return caught as OutputValidationError;
}

function ask(kit: ScenarioKit, s: Setup, prompt: string, max_output_tokens?: number) {
  return kit.request({
    messages: [kit.user(s, prompt)],
    ...(max_output_tokens ? { max_output_tokens } : {}),
  });
}

async function nativeObject(kit: ScenarioKit): Promise<void> {
  const s = kit.setup('structured-object', { fixtureOf: 'structured-output' });
  const { object, response } = await completeObject(
    s.adapter,
    ask(kit, s, EXPECTED.structured.prompt),
    { schema: EXPECTED.structured.schema, plan: NATIVE },
  );
  expect(object, 'the reply parsed and validated').toEqual({ city: 'Paris', population: 2102650 });
  expect(response.stop_reason).toBe('end_turn');
  expect(kit.wire.outputSchema(kit.body()), 'the full schema reaches the wire').toEqual(
    EXPECTED.structured.schema,
  );
}

async function nativeInvalid(kit: ScenarioKit): Promise<void> {
  const s = kit.setup('structured-object-invalid', { fixtureOf: 'structured-output' });
  const base = EXPECTED.structured.schema;
  const schema = {
    ...base,
    properties: { ...base.properties, population: { type: 'integer', maximum: 1000 } },
  };
  const error = await rejection(
    completeObject(s.adapter, ask(kit, s, EXPECTED.structured.prompt), { schema, plan: NATIVE }),
  );
  expect(error.issues).toEqual([
    expect.objectContaining({ path: '$.population', rule: 'maximum' }),
  ]);
  expect(error.cut).toBe(false);
  expect(error.stop_reason).toBe('end_turn');
  expect(error.text).toBe(EXPECTED.structured.reply);
}

async function nativeCut(kit: ScenarioKit): Promise<void> {
  const own = kit.fixtures['structured-object-cut'] !== undefined;
  const s = kit.setup('structured-object-cut', own ? {} : { fixtureOf: 'empty-reply-length' });
  const error = await rejection(
    completeObject(s.adapter, ask(kit, s, EXPECTED.structured.prompt, 16), {
      schema: EXPECTED.structured.schema,
      plan: NATIVE,
    }),
  );
  expect(error.cut, 'a reply stopped at max_tokens is reported cut').toBe(true);
  expect(error.stop_reason).toBe('max_tokens');
  expect(error.issues[0]).toMatchObject({ path: '$', rule: 'json' });
  expect(error.message).toMatch(/cut at max_tokens/);
  if (own) expect(error.text, 'the text the reply was cut in').toBe(CUT_REPLY);
}

async function nativeRefusal(kit: ScenarioKit): Promise<void> {
  const s = kit.setup('structured-object-refusal', { fixtureOf: 'refusal' });
  const error = await rejection(
    completeObject(s.adapter, ask(kit, s, EXPECTED.refusal.prompt), {
      schema: EXPECTED.structured.schema,
      plan: NATIVE,
    }),
  );
  expect(error.refusal, 'a refusal is reported as one').toBeTypeOf('string');
  expect(error.stop_reason).toBe('refusal');
  expect(error.code).toBe('output_refused');
}

/** Checks a forced choice on the wire, or its downgrade to auto with a WARN. */
function expectForced(kit: ScenarioKit, s: Setup, body: unknown, choice: ToolChoice): void {
  const sent = kit.wire.toolChoice?.(body);
  if (kit.features.toolChoice === 'forced') {
    expect(sent, `tool_choice ${JSON.stringify(choice)} on the wire`).toEqual(choice);
    return;
  }
  expect(sent, 'a downgraded forced choice goes as auto').toBe('auto');
  expect(
    s.logger.warnings().some((w) => w.obj.event === 'tool_choice_downgraded'),
    'a forced choice sent as auto must be logged at WARN (tool_choice_downgraded)',
  ).toBe(true);
}

async function toolObject(kit: ScenarioKit): Promise<void> {
  const s = kit.setup('structured-tool', { fixtureOf: 'tool-call' });
  const { object } = await completeObject(s.adapter, ask(kit, s, EXPECTED.toolCall.prompt), {
    schema: PATH_SCHEMA,
    plan: TOOL,
  });
  expect(object, "the output tool's input is the object").toEqual(EXPECTED.toolCall.input);
  const body = kit.body();
  expect(kit.wire.toolNames(body)).toEqual([EXPECTED.toolCall.tool]);
  expect(kit.wire.outputSchema(body) ?? null, 'no native schema in tool mode').toBeNull();
  expectForced(kit, s, body, { type: 'tool', name: EXPECTED.toolCall.tool });
}

async function toolInvalid(kit: ScenarioKit): Promise<void> {
  const s = kit.setup('structured-tool-invalid', { fixtureOf: 'tool-call' });
  const schema = {
    ...PATH_SCHEMA,
    properties: { path: { type: 'string', pattern: '^/' } },
  };
  const error = await rejection(
    completeObject(s.adapter, ask(kit, s, EXPECTED.toolCall.prompt), { schema, plan: TOOL }),
  );
  expect(error.issues).toEqual([expect.objectContaining({ path: '$.path', rule: 'pattern' })]);
  expect(JSON.parse(error.text)).toEqual(EXPECTED.toolCall.input);
}

async function toolMissing(kit: ScenarioKit): Promise<void> {
  const s = kit.setup('structured-tool-missing', { fixtureOf: 'text' });
  const error = await rejection(
    completeObject(s.adapter, ask(kit, s, EXPECTED.text.prompt), {
      schema: PATH_SCHEMA,
      plan: TOOL,
    }),
  );
  expect(error.issues[0]).toMatchObject({ path: '$', rule: 'tool_call' });
  expect(error.text).toBe(EXPECTED.text.reply);
}

async function toolChoices(kit: ScenarioKit): Promise<void> {
  const choices: ToolChoice[] = ['auto', 'none', 'required', { type: 'tool', name: 'read_file' }];
  const s = kit.setup('tool-choice', { fixtureOf: 'tool-call', times: choices.length });
  const tools = [kit.tools.read_file, kit.tools.get_time];
  for (const [i, tool_choice] of choices.entries()) {
    await s.adapter.complete(
      kit.request({ messages: [kit.user(s, EXPECTED.toolCall.prompt)], tools, tool_choice }),
    );
    const body = kit.body(i);
    if (tool_choice === 'auto' || tool_choice === 'none') {
      expect(kit.wire.toolChoice?.(body), `tool_choice ${tool_choice} on the wire`).toBe(
        tool_choice,
      );
    } else {
      expectForced(kit, s, body, tool_choice);
    }
  }
}
