import type { ScriptedResponse } from '@yourtool/conformance';

const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
const usage = { input_tokens: 120, output_tokens: 9 };

/** An Anthropic streamed reply calling one tool (written as the Messages API streams it). */
export function anthropicToolCall(name: string, input: Record<string, unknown>): ScriptedResponse {
  return {
    type: 'stream',
    contentType: 'text/event-stream',
    chunks: [
      sse('message_start', {
        type: 'message_start',
        message: {
          id: 'msg_mcp_1',
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-6',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 120, output_tokens: 1 },
        },
      }),
      sse('content_block_start', {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'tool_use', id: 'toolu_mcp_1', name, input: {} },
      }),
      sse('content_block_delta', {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(input) },
      }),
      sse('content_block_stop', { type: 'content_block_stop', index: 0 }),
      sse('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: 'tool_use', stop_sequence: null },
        usage,
      }),
      sse('message_stop', { type: 'message_stop' }),
    ],
  };
}

/** An Anthropic streamed reply of one text. */
export function anthropicText(text: string): ScriptedResponse {
  return {
    type: 'stream',
    contentType: 'text/event-stream',
    chunks: [
      sse('message_start', {
        type: 'message_start',
        message: {
          id: 'msg_mcp_2',
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-6',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 150, output_tokens: 1 },
        },
      }),
      sse('content_block_start', {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'text', text: '' },
      }),
      sse('content_block_delta', {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'text_delta', text },
      }),
      sse('content_block_stop', { type: 'content_block_stop', index: 0 }),
      sse('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: 'end_turn', stop_sequence: null },
        usage,
      }),
      sse('message_stop', { type: 'message_stop' }),
    ],
  };
}
