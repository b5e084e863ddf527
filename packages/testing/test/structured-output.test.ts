import { OutputValidationError } from '@yourtool/core';
import { createRuntime, type Runtime, type SessionEvent } from '@yourtool/runtime';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  cutObject,
  objectReply,
  objectText,
  type ScriptedProvider,
  startScriptedProvider,
  usage,
} from '../src/index.js';

// Issue 45: a turn asks for an object; Claude gives it natively, a model without native
// structured output gives it through the forced-tool fallback, both through the real SDKs.

let provider: ScriptedProvider;
beforeAll(async () => {
  provider = await startScriptedProvider();
});
afterAll(() => provider.close());
const opened: Runtime[] = [];
afterEach(async () => {
  provider.clear();
  await Promise.all(opened.splice(0).map((r) => r.close()));
});

const CITY = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    population: { type: 'integer', minimum: 0 },
    districts: { type: 'array', items: { type: 'string' } },
  },
  required: ['name', 'population', 'districts'],
  additionalProperties: false,
} as const;

const PARIS = { name: 'Paris', population: 2_102_650, districts: ['Louvre', 'Bourse', 'Temple'] };
const LYON = { name: 'Lyon', population: 522_250, districts: ['Croix-Rousse', 'Confluence'] };

/** Claude (native structured output) and a Chat-Completions model with tools but no native output. */
async function runtime(): Promise<Runtime> {
  const opened_ = await createRuntime({
    models: provider.modelsYaml({
      models: {
        'anthropic:claude-sonnet-4-6': { aliases: ['sonnet'] },
        'local:qwen3-8b': {
          aliases: ['qwen'],
          capabilities: { supports_structured_output: false, supports_tools: true },
        },
      },
    }),
    logger: false,
  });
  opened.push(opened_);
  return opened_;
}

async function collect(stream: AsyncIterable<SessionEvent>) {
  const events: SessionEvent[] = [];
  try {
    for await (const event of stream) events.push(event);
  } catch (error) {
    return { events, error };
  }
  return { events, error: undefined };
}

const partials = (events: SessionEvent[]) =>
  events.flatMap((e) => (e.type === 'object.partial' ? [e.value] : []));

describe('a session asking for an object', () => {
  it('gets it natively on Claude, then through the forced tool on a model without native output', async () => {
    const rt = await runtime();
    const session = await rt.sessions.createSession({ workspace_path: '/w' });

    provider.reply(objectReply(PARIS, { chunks: 9 }));
    const onClaude = await collect(
      rt.sessions.send(session.id, 'Describe Paris.', { output: CITY }),
    );
    expect(onClaude.error).toBeUndefined();
    const first = onClaude.events.at(-1);
    if (first?.type !== 'session.turn_complete') throw new Error('no turn_complete');
    expect(first.result.object).toEqual(PARIS);
    expect(partials(onClaude.events).length).toBeGreaterThan(3);
    expect(partials(onClaude.events).at(-1)).toEqual(first.result.object);
    const claudeBody = provider.requests.at(-1)?.body as Record<string, unknown>;
    expect(provider.requests.at(-1)?.tools).toEqual([]);
    expect(JSON.stringify(claudeBody)).toContain('"population"');
    const claudeReply = first.result.messages.find((m) => m.role === 'assistant');
    expect(claudeReply?.metadata.structured_output).toEqual({
      mode: 'native',
      valid: true,
      attempt: 1,
    });

    await rt.sessions.swapModel(session.id, 'qwen');
    provider.reply(objectReply(LYON, { chunks: 7 }));
    const onQwen = await collect(rt.sessions.send(session.id, 'Now Lyon.', { output: CITY }));
    expect(onQwen.error).toBeUndefined();
    const second = onQwen.events.at(-1);
    if (second?.type !== 'session.turn_complete') throw new Error('no turn_complete');
    expect(second.result.object).toEqual(LYON);
    expect(second.result.end).toBe('end_turn');
    expect(partials(onQwen.events).at(-1)).toEqual(LYON);
    const qwenRequest = provider.requests.at(-1);
    expect(qwenRequest?.format).toBe('openai-chat');
    expect(qwenRequest?.tools).toEqual(['structured_output']);
    // the output tool's call is answered, so the stored history stays valid for the next turn
    expect(second.result.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(second.result.messages[1]?.metadata.structured_output).toMatchObject({
      mode: 'tool',
      valid: true,
    });
    const history = await rt.sessions.history(session.id);
    expect(history).toHaveLength(5);
  });

  it('ends the turn with OutputValidationError naming the path and rule', async () => {
    const rt = await runtime();
    const session = await rt.sessions.createSession({ workspace_path: '/w' });
    provider.reply(objectReply({ ...PARIS, population: -3 }));
    const { events, error } = await collect(
      rt.sessions.send(session.id, 'Describe Paris.', { output: CITY }),
    );
    expect(error).toBeInstanceOf(OutputValidationError);
    const invalid = error as OutputValidationError;
    expect(invalid.issues).toEqual([
      expect.objectContaining({ path: '$.population', rule: 'minimum' }),
    ]);
    expect([invalid.stop_reason, invalid.cut]).toEqual(['end_turn', false]);
    expect(events.find((e) => e.type === 'object.invalid')).toMatchObject({
      attempt: 1,
      will_repair: false,
    });
    const stored = await rt.sessions.history(session.id);
    expect(stored.at(-1)?.metadata.structured_output).toMatchObject({
      valid: false,
      issues: [expect.objectContaining({ path: '$.population' })],
    });
  });

  it('says a reply cut at max_tokens was cut, on both paths', async () => {
    const rt = await runtime();
    const session = await rt.sessions.createSession({ workspace_path: '/w' });
    provider.reply(cutObject(PARIS, { at: 30 }));
    const native = await collect(rt.sessions.send(session.id, 'Paris?', { output: CITY }));
    expect(native.error).toMatchObject({ cut: true, stop_reason: 'max_tokens' });
    expect((native.error as Error).message).toMatch(/cut at max_tokens/);

    await rt.sessions.swapModel(session.id, 'qwen');
    provider.reply(cutObject(PARIS, { at: 30 }));
    const tool = await collect(rt.sessions.send(session.id, 'Paris?', { output: CITY }));
    expect(tool.error).toMatchObject({ cut: true, stop_reason: 'max_tokens' });
  });

  it('repairs on request: attempt 2 succeeds, both attempts stored and priced', async () => {
    const rt = await runtime();
    const session = await rt.sessions.createSession({ workspace_path: '/w' });
    provider
      .reply(objectText('Paris has about two million people.'))
      .reply(objectReply(PARIS, { extra: [usage({ input_tokens: 300, output_tokens: 40 })] }));
    const { events, error } = await collect(
      rt.sessions.send(session.id, 'Describe Paris.', {
        output: CITY,
        outputRepair: { maxAttempts: 3 },
      }),
    );
    expect(error).toBeUndefined();
    const done = events.at(-1);
    if (done?.type !== 'session.turn_complete') throw new Error('no turn_complete');
    expect(done.result.object).toEqual(PARIS);
    const replies = done.result.messages.filter((m) => m.role === 'assistant');
    expect(replies.map((m) => m.metadata.structured_output)).toEqual([
      expect.objectContaining({ attempt: 1, valid: false }),
      { mode: 'native', attempt: 2, valid: true },
    ]);
    for (const reply of replies) expect(reply.metadata.usage?.cost_usd).toMatch(/^\d+\.\d+$/);
    expect(done.result.cost_usd).not.toBeNull();
    // the repair request carried the validation error back to the model
    expect(provider.requests[1]?.lastUserText).toMatch(/\$: not JSON/);
    expect(events.find((e) => e.type === 'object.invalid')).toMatchObject({ will_repair: true });
  });

  it('unwraps a non-object schema the fallback sent as { value }, partials included', async () => {
    const rt = await runtime();
    const session = await rt.sessions.createSession({ workspace_path: '/w' });
    await rt.sessions.swapModel(session.id, 'qwen');
    const tags = { type: 'array', items: { type: 'string' }, minItems: 2 };
    provider.reply(objectReply(['north', 'south', 'east'], { chunks: 6 }));
    const { events, error } = await collect(
      rt.sessions.send(session.id, 'Three directions.', { output: tags }),
    );
    expect(error).toBeUndefined();
    const done = events.at(-1);
    if (done?.type !== 'session.turn_complete') throw new Error('no turn_complete');
    expect(done.result.object).toEqual(['north', 'south', 'east']);
    const seen = partials(events).filter((v) => v !== undefined);
    expect(seen.length).toBeGreaterThan(1);
    expect(seen.every(Array.isArray)).toBe(true);
    expect(seen.at(-1)).toEqual(['north', 'south', 'east']);
  });
});
