import {
  type ContentBlock,
  createMessage,
  type Message,
  newRequestId,
  newSessionId,
  sealMessage,
  ToolIdMap,
} from '@yourtool/core';
import { assistantTestMetadata } from '@yourtool/testkit';
import { describe, expect, it } from 'vitest';
import { anthropicRequestBody } from '../src/codec/body.js';
import { turnsPrefix } from '../src/codec/remembered-turns.js';
import { AnthropicWireMemory, toAnthropicParams } from '../src/codec.js';

/**
 * A stored TOOL message reaches the encoder as the same sealed object (core's `asToolReply`), so
 * Anthropic's memory keeps its form and folds the remembered turns past it (decision 0196): a
 * session of tool exchanges is remembered whole, and its body stays what a cold encoding gives.
 */
const MODEL = 'anthropic:claude-sonnet-4-6';
const session_id = newSessionId();
const message = (role: Message['role'], content: ContentBlock[], metadata = {}) =>
  sealMessage(
    createMessage({
      session_id,
      role,
      content,
      metadata: role === 'assistant' ? assistantTestMetadata(MODEL) : metadata,
    }),
  );

function exchange(turn: number): Message[] {
  const id = `toolu_${turn}`;
  return [
    message('user', [{ type: 'text', text: `question ${turn}` }]),
    message('assistant', [{ type: 'tool_use', id, name: 'read_file', input: { turn } }]),
    message(
      'tool',
      [
        {
          type: 'tool_result',
          tool_use_id: id,
          content: [{ type: 'text', text: `file ${turn}` }],
          is_error: false,
        },
      ],
      { parent_tool_use_id: id },
    ),
    message('assistant', [{ type: 'text', text: `answer ${turn}` }]),
  ];
}

function body(messages: readonly Message[], toolIdMap: ToolIdMap, memory?: AnthropicWireMemory) {
  const { params } = toAnthropicParams(
    {
      request_id: newRequestId(),
      model: MODEL,
      messages: [...messages],
      tools: [],
      stop_sequences: [],
      max_output_tokens: 512,
      stream: false,
    },
    { toolIdMap, ...(memory ? { memory } : {}) },
  );
  return Buffer.from(anthropicRequestBody({ ...params, stream: false }, memory)).toString('utf8');
}

describe('Anthropic: stored tool messages are remembered (decision 0196)', () => {
  it('keeps every sealed message of tool exchanges and folds the turns past them', () => {
    const history = [0, 1, 2].flatMap(exchange);
    const map = new ToolIdMap();
    const memory = new AnthropicWireMemory();
    const asked = [...history, message('user', [{ type: 'text', text: 'and now?' }])];
    const first = body(asked, map, memory);
    const second = body(asked, map, memory);
    expect(second).toBe(first);
    expect(second).toBe(body(structuredClone(asked), new ToolIdMap(map.entries())));
    const tools = history.filter((m) => m.role === 'tool');
    expect(tools).toHaveLength(3);
    expect(tools.every((m) => memory.forms.has(m, map))).toBe(true);
    const prefix = turnsPrefix(asked, map, memory, 'anthropic');
    expect(prefix.stopped).toBe(false);
    expect(prefix.forms).toHaveLength(asked.length);
    // every turn but the last, which a later user message could still merge into
    expect(prefix.closed).toHaveLength(history.length);
  });
});
