import { type ContentBlock, conformsToToolIdRules, type Message, ToolIdMap } from '@yourtool/core';
import fc from 'fast-check';
import { expect } from 'vitest';
import { EXPECTED, TEST_PNG_BASE64 } from '../catalog.js';
import type { ScenarioKit, Setup } from '../kit.js';
import { expectAlternatingRoles } from './shared.js';

/** A history written on another provider, replayed to this one. */
export function registerForeignHistoryScenario(kit: ScenarioKit): void {
  kit.scenario('foreign-history', () => foreignHistory(kit));
}

/**
 * What the model cannot take is dropped, and said so; content survives the codec's round trip.
 */
export function registerCapabilityAndCodecScenarios(kit: ScenarioKit): void {
  kit.scenario('capability-honesty', () => capabilityHonesty(kit));
  kit.scenario('codec-round-trip', async () => codecRoundTrip(kit));
}

const FOREIGN_MODEL = 'elsewhere:model-x';
const FOREIGN_ID = 'call_abc|fc_0123456789abcdef0123456789abcdef0123456789';

/** A conversation from another provider: signed and redacted thinking, empty text, a tool call. */
function foreignConversation(kit: ScenarioKit, s: Setup): Message[] {
  const { user, assistant, toolResult } = kit;
  return [
    user(s, 'Plan the migration.'),
    assistant(
      s,
      [
        { type: 'thinking', text: 'Foreign reasoning.', signature: 'foreign-signature-9f8e7d' },
        { type: 'redacted_thinking', data: 'foreign-redacted-1a2b3c' },
        { type: 'text', text: '' },
        { type: 'text', text: 'Reading the schema.' },
        { type: 'tool_use', id: FOREIGN_ID, name: 'read_file', input: { path: 'schema.sql' } },
      ],
      FOREIGN_MODEL,
    ),
    toolResult(s, FOREIGN_ID, [{ type: 'text', text: 'CREATE TABLE t (id int);' }]),
    assistant(s, [{ type: 'text', text: '' }], FOREIGN_MODEL),
    user(s, 'Continue.'),
  ];
}

/** The foreign tool call and its result stay, under ids the provider accepts. */
function expectForeignToolCallKept(kit: ScenarioKit, sent: unknown): void {
  const calls = kit.wire.toolCalls(sent);
  const results = kit.wire.toolResults(sent);
  expect(calls, 'the foreign tool call stays in the history').toHaveLength(1);
  expect(results, 'its result stays in the history').toHaveLength(1);
  if (kit.wireToolIds) {
    for (const id of [...calls.map((c) => c.id), ...results.map((r) => r.id)]) {
      expect(
        conformsToToolIdRules(id, kit.toolIdRules),
        `tool id "${id}" must satisfy the provider's id rules`,
      ).toBe(true);
    }
    expect(results[0]?.id, 'the result must answer the (re-mapped) call id').toBe(calls[0]?.id);
  }
}

async function foreignHistory(kit: ScenarioKit): Promise<void> {
  const { setup, request, tools, wire, body } = kit;
  const s = setup('foreign-history');
  const res = await s.adapter.complete(
    request({ messages: foreignConversation(kit, s), tools: [tools.read_file] }),
    {
      toolIdMap: new ToolIdMap(),
    },
  );
  expect(res.content).toEqual([{ type: 'text', text: EXPECTED.replyAfterHistory.reply }]);
  const sent = body();
  const json = JSON.stringify(sent);
  expect(json, 'a foreign thinking signature must never reach another provider').not.toContain(
    'foreign-signature-9f8e7d',
  );
  expect(json, 'foreign redacted thinking must never reach another provider').not.toContain(
    'foreign-redacted-1a2b3c',
  );
  expectForeignToolCallKept(kit, sent);
  expect(wire.hasEmptyContent(sent), 'no empty text or empty message may reach the provider').toBe(
    false,
  );
  if (kit.alternatingRoles) {
    const roles = wire.roles(sent);
    expect(roles[0], 'the conversation must start with a user turn').toBe('user');
    expectAlternatingRoles(roles);
  }
  const dropped = s.logger.warnings().filter((w) => w.obj.event === 'block_dropped');
  expect(
    dropped.map((w) => w.obj.block_type).sort(),
    'each dropped block is logged at WARN',
  ).toEqual(['redacted_thinking', 'thinking']);
  expect(
    dropped.every((w) => w.obj.adapter === s.adapter.name && w.obj.session_id === s.session_id),
  ).toBe(true);
}

/**
 * A block the model cannot take: an image when it has no images, else thinking when it has no
 * thinking, else thinking from another provider (which no model can take).
 */
function unsupportedBlock(kit: ScenarioKit): { block: ContentBlock; from: string } {
  if (!kit.capabilities.supports_images) {
    return {
      block: {
        type: 'image',
        source: { kind: 'base64', data: TEST_PNG_BASE64 },
        media_type: 'image/png',
      },
      from: kit.model,
    };
  }
  const block: ContentBlock = {
    type: 'thinking',
    text: 'Hidden reasoning.',
    signature: 'unsupported-signature-7c6b',
  };
  // everything is supported: thinking from another provider can never be represented
  return { block, from: kit.capabilities.supports_thinking ? 'elsewhere:model-y' : kit.model };
}

async function capabilityHonesty(kit: ScenarioKit): Promise<void> {
  const { setup, request, user, assistant, wire, body } = kit;
  const s = setup('capability-honesty');
  const { block, from } = unsupportedBlock(kit);
  const messages =
    block.type === 'image'
      ? [user(s, [{ type: 'text', text: 'Look.' }, block])]
      : [
          user(s, 'Hi'),
          assistant(s, [block, { type: 'text', text: 'Hello.' }], from),
          user(s, 'Again.'),
        ];
  const res = await s.adapter.complete(request({ messages }));
  expect(res.content).toEqual([{ type: 'text', text: EXPECTED.replyAfterHistory.reply }]);
  const sent = body();
  if (block.type === 'image')
    expect(wire.imageCount(sent), 'an image sent to a model without images').toBe(0);
  else expect(JSON.stringify(sent)).not.toContain('unsupported-signature-7c6b');
  expect(
    s.logger
      .warnings()
      .some((w) => w.obj.event === 'block_dropped' && w.obj.block_type === block.type),
    `dropping the ${block.type} block must be logged at WARN`,
  ).toBe(true);
}

/** Arbitrary assistant content: optional text, then tool uses with arbitrary JSON input. */
function assistantContent(): fc.Arbitrary<ContentBlock[]> {
  const leaf = fc.oneof(
    fc.string({ unit: 'grapheme' }),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => (Object.is(n, -0) ? 0 : n)),
    fc.boolean(),
    fc.constant(null),
  );
  const key = fc
    .string({ unit: 'grapheme', minLength: 1, maxLength: 12 })
    .filter((k) => k !== '__proto__');
  const { value } = fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      leaf,
      fc.array(tie('value'), { maxLength: 4 }),
      fc.dictionary(key, tie('value'), { maxKeys: 4 }),
    ),
  }));
  const input = fc.dictionary(key, value, { maxKeys: 5 }) as fc.Arbitrary<Record<string, unknown>>;
  const text = fc
    .string({ unit: 'grapheme', minLength: 1, maxLength: 60 })
    .filter((t) => t.trim() !== '' && t === t.trim());
  const name = fc.stringMatching(/^[a-z][a-z0-9_]{0,20}$/);
  return fc
    .tuple(
      fc.option(text, { nil: undefined }),
      fc.array(fc.tuple(name, input), { minLength: 0, maxLength: 4 }),
    )
    .filter(([t, uses]) => t !== undefined || uses.length > 0)
    .map(([t, uses]): ContentBlock[] => [
      ...(t === undefined ? [] : [{ type: 'text', text: t } as const]),
      ...uses.map(([toolName, toolInput], i) => ({
        type: 'tool_use' as const,
        id: `tu_01JZ00000000000000000000${String(i).padStart(2, '0')}`,
        name: toolName,
        input: toolInput,
      })),
    ]);
}

function codecRoundTrip(kit: ScenarioKit): void {
  fc.assert(
    fc.property(assistantContent(), (blocks) => {
      const back = kit.codec.roundTrip(blocks, new ToolIdMap());
      expect(back, 'canonical → wire → canonical must give back the same blocks').toEqual(blocks);
    }),
    { numRuns: 200 },
  );
}
