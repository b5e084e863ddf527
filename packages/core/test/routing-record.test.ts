import { describe, expect, it } from 'vitest';
import { RoutingDecisionRecordSchema } from './exports.js';

describe('RoutingDecisionRecord.fallback_from', () => {
  const base = {
    mode: 'rule',
    chosen_model: 'openai:gpt-5',
    reason: 'fallback of anthropic:claude-sonnet-4-6',
    rule_name: 'code',
    alternatives_considered: ['anthropic:claude-sonnet-4-6'],
  };

  it('keeps the failed attempts of a fallback, in order', () => {
    const record = RoutingDecisionRecordSchema.parse({
      ...base,
      fallback_from: [
        {
          model: 'anthropic:claude-sonnet-4-6',
          error_class: 'server_error',
          reason: '503 overloaded',
        },
      ],
    });
    expect(record.fallback_from).toEqual([
      {
        model: 'anthropic:claude-sonnet-4-6',
        error_class: 'server_error',
        reason: '503 overloaded',
      },
    ]);
  });

  it('is absent on a first choice, and refuses an unknown error class', () => {
    expect(RoutingDecisionRecordSchema.parse(base)).not.toHaveProperty('fallback_from');
    expect(
      RoutingDecisionRecordSchema.safeParse({
        ...base,
        fallback_from: [{ model: 'a:b', error_class: 'teapot', reason: 'x' }],
      }).success,
    ).toBe(false);
  });
});
