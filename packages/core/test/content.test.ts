import { describe, expect, it } from 'vitest';
import {
  type ContentBlock,
  ContentBlockSchema,
  MessageParseError,
  parseMessage,
  serializeMessage,
} from './exports.js';
import { completeAssistantMeta, msg, PNG_1PX } from './helpers.js';

const blocks: Record<ContentBlock['type'], ContentBlock> = {
  text: { type: 'text', text: 'héllo wörld ✓' },
  tool_use: {
    type: 'tool_use',
    id: 'tu_01HZ0000000000000000000000',
    name: 'read_file',
    input: { path: 'README.md', opts: { lines: [1, 2], follow: false, note: null } },
  },
  tool_result: {
    type: 'tool_result',
    tool_use_id: 'tu_01HZ0000000000000000000000',
    content: [
      { type: 'text', text: '# Title' },
      { type: 'image', source: { kind: 'base64', data: PNG_1PX }, media_type: 'image/png' },
    ],
    is_error: true,
  },
  image: {
    type: 'image',
    source: { kind: 'url', data: 'https://example.com/a.png' },
    media_type: 'image/png',
  },
  thinking: { type: 'thinking', text: 'Let me think.', signature: 'sig-abc' },
  redacted_thinking: { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4a' },
};

describe('content blocks', () => {
  for (const [type, block] of Object.entries(blocks)) {
    it(`parses and serializes a ${type} block unchanged`, () => {
      expect(ContentBlockSchema.parse(JSON.parse(JSON.stringify(block)))).toEqual(block);
    });
  }

  it('round-trips a message holding every block type through serialize and parse', () => {
    const message = msg(
      'assistant',
      [blocks.thinking, blocks.redacted_thinking, blocks.text, blocks.tool_use],
      completeAssistantMeta(),
    );
    const again = parseMessage(serializeMessage(message));
    expect(again).toEqual(message);
    const user = msg('user', [blocks.text, blocks.image]);
    expect(parseMessage(serializeMessage(user))).toEqual(user);
    const tool = msg('tool', [blocks.tool_result], {
      parent_tool_use_id: 'tu_01HZ0000000000000000000000',
    });
    expect(parseMessage(serializeMessage(tool))).toEqual(tool);
  });

  it('defaults is_error to false on tool results', () => {
    const parsed = ContentBlockSchema.parse({ type: 'tool_result', tool_use_id: 'x', content: [] });
    expect(parsed).toEqual({ type: 'tool_result', tool_use_id: 'x', content: [], is_error: false });
  });

  it('refuses a tool use nested in a tool result, naming the path', () => {
    const message = msg('tool', [blocks.tool_result], {
      parent_tool_use_id: 'tu_01HZ0000000000000000000000',
    });
    const raw = JSON.parse(serializeMessage(message));
    raw.content[0].content.push(blocks.tool_use);
    expect(() => parseMessage(raw)).toThrowError(MessageParseError);
    try {
      parseMessage(raw);
    } catch (error) {
      expect((error as MessageParseError).issues.map((i) => i.path)).toContain(
        'content[0].content[2].type',
      );
    }
  });

  it('keeps every metadata field through a round trip', () => {
    const message = msg('assistant', [blocks.text], {
      ...completeAssistantMeta('openai:gpt-5'),
      provider_raw: { openai: { system_fingerprint: 'fp_1' } },
      user_id: 'u_1',
      team_id: 't_1',
      critical: true,
      routing: {
        mode: 'pattern',
        chosen_model: 'openai:gpt-5',
        reason: 'pattern store',
        rule_name: null,
        confidence: 0.82,
        alternatives_considered: ['anthropic:claude-sonnet-4-6'],
      },
    });
    expect(parseMessage(JSON.parse(serializeMessage(message)))).toEqual(message);
  });
});
