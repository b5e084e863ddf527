import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { quickRequestShell } from '../src/quick-request.js';
import { CanonicalRequestSchema } from './exports.js';

/**
 * The quick check of a request's shell (a session's every call) must never accept what the
 * request schema refuses, and what it accepts must equal the schema's output, key order
 * included. Random shells, well-formed and not, hold it to that.
 */

const shellSchema = CanonicalRequestSchema.omit({ messages: true });

/** A value for a field: often a good one, sometimes one of the wrong kind. */
const field = <T>(good: fc.Arbitrary<T>) =>
  fc.oneof(
    { weight: 6, arbitrary: good },
    {
      weight: 1,
      arbitrary: fc.oneof(
        fc.constant(undefined),
        fc.constant(null),
        fc.constant(''),
        fc.constant(-1),
        fc.constant(1.5),
        fc.constant(Number.NaN),
        fc.constant([1]),
        fc.constant({}),
      ),
    },
  );

const shell = fc.record(
  {
    request_id: field(fc.string({ minLength: 1 })),
    messages: fc.constant([]),
    tools: field(fc.constant([])),
    system_prompt: field(fc.option(fc.string(), { nil: null })),
    model: field(fc.constantFrom('anthropic:claude-sonnet-4-6', 'openai:gpt-5')),
    max_output_tokens: field(fc.integer({ min: 1, max: 1_000_000 })),
    stop_sequences: field(fc.array(fc.string(), { maxLength: 3 })),
    temperature: field(fc.option(fc.double({ min: 0, max: 2, noNaN: true }), { nil: null })),
    output_schema: field(fc.constant(null)),
    tool_choice: field(fc.constant(undefined)),
    stream: field(fc.boolean()),
  },
  { requiredKeys: ['request_id', 'messages', 'model', 'max_output_tokens'] },
);

describe('quickRequestShell', () => {
  it('accepts only what the request schema accepts, and returns what it returns', () => {
    let accepted = 0;
    fc.assert(
      fc.property(shell, (request) => {
        const quick = quickRequestShell(request);
        if (quick === null) return;
        accepted++;
        const parsed = shellSchema.safeParse(request);
        expect(parsed.success).toBe(true);
        expect(quick).toStrictEqual(parsed.data);
        expect(Object.keys(quick)).toEqual(Object.keys(parsed.data ?? {}));
      }),
      { numRuns: 2000 },
    );
    // the property says nothing when nothing passes the quick check
    expect(accepted).toBeGreaterThan(100);
  });

  it("leaves to the schema what it does not decide (a tool without side effects, an unknown tool choice or key), and returns the schema's output for the rest", () => {
    const base = { request_id: 'req_1', model: 'a:b', max_output_tokens: 10, messages: [] };
    expect(quickRequestShell(base)).not.toBeNull();
    const tool = { name: 'read', description: 'reads', input_schema: { type: 'object' } };
    expect(quickRequestShell({ ...base, tools: [tool] })).toBeNull();
    expect(quickRequestShell({ ...base, tool_choice: { type: 'auto' } })).toBeNull();
    expect(quickRequestShell({ ...base, extra: true })).toBeNull();
    const full = {
      ...base,
      tools: [{ ...tool, side_effects: 'read' }],
      tool_choice: { type: 'tool', name: 'read' },
      output_schema: { type: 'object' },
    };
    for (const request of [full, Object.assign(Object.create(null), full)]) {
      const quick = quickRequestShell(request);
      const parsed = shellSchema.parse(request);
      expect(quick).toStrictEqual(parsed);
      expect(Object.keys(quick ?? {})).toEqual(Object.keys(parsed));
    }
  });
});
