import { describe, expect, it } from 'vitest';
import { readAnthropicDelta } from '../src/codec/stream-fast.js';

describe('readAnthropicDelta', () => {
  const same = [
    '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}',
    '{"type":"content_block_delta","index":12,"delta":{"type":"text_delta","text":""}}',
    '{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"a \\"q\\" \\\\ \\n \\u00e9 🎉"}}',
    '{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\\"path\\": \\"a"}}',
  ];
  it('builds exactly what JSON.parse builds, key for key', () => {
    for (const data of same) {
      const read = readAnthropicDelta(data);
      expect(read, data).toBeDefined();
      expect(JSON.stringify(read)).toBe(JSON.stringify(JSON.parse(data)));
    }
  });

  const others = [
    '{"type":"content_block_delta", "index":0,"delta":{"type":"text_delta","text":"spaced"}}',
    '{"type":"content_block_delta","index":01,"delta":{"type":"text_delta","text":"zero"}}',
    '{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"t"}}',
    '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a","extra":1}}',
    '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}} ',
    '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}}}',
    '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"raw\ncontrol"}}',
    '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"},"x":"}}',
  ];
  it('leaves every other shape to JSON.parse', () => {
    for (const data of others) expect(readAnthropicDelta(data), data).toBeUndefined();
  });
});
