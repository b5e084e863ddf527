import * as core from '@yourtool/core';
import { describe, expect, it } from 'vitest';

// The root is the contract (decision 0157): the canonical schemas an application needs to read
// what another process sends, and no more than a reader can take in. The built package is read,
// as users import it.
const ROOT_EXPORT_CAP = 125;

describe("core's root entry", () => {
  it(`exports the canonical stream event and response schemas, within ${ROOT_EXPORT_CAP} names`, () => {
    const event = {
      type: 'text.delta',
      content_block_index: 0,
      text: 'Hello',
    };
    expect(core.StreamEventSchema.parse(event)).toEqual(event);
    const response = core.CanonicalResponseSchema.parse({
      request_id: 'req_01J0000000000000000000000',
      model: 'anthropic:claude-sonnet-4-6',
      provider: 'anthropic',
      content: [{ type: 'text', text: 'Hello' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 3, output_tokens: 1 },
      latency_ms: 12,
    });
    expect(response.stop_reason).toBe('end_turn');
    expect(core.StreamEventSchema.safeParse({ type: 'usage_update' }).success).toBe(false);
    // 71 today; the sealed-prefix names leave with the shape issue's cache-ownership work
    expect(Object.keys(core).length).toBeLessThanOrEqual(ROOT_EXPORT_CAP);
  });
});
