import { openAIResponses } from './responses-wire.js';
import {
  DEFAULT_STREAM_SIZE,
  expectedOf,
  type Plan,
  plan,
  type StreamProvider,
  type StreamSize,
  sse,
  type WireStream,
} from './wire-plan.js';

export {
  DEFAULT_STREAM_SIZE,
  type ExpectedContent,
  STREAM_PROVIDERS,
  type StreamProvider,
  type StreamSize,
  type WireStream,
} from './wire-plan.js';

/** Anthropic Messages API SSE: message_start, a text block, tool_use blocks, message_delta/stop. */
function anthropic(p: Plan): WireStream {
  const events: string[] = [];
  let data = 0;
  const push = (type: string, body: Record<string, unknown>) => {
    events.push(sse(type, { type, ...body }));
    data++;
  };
  push('message_start', {
    message: {
      id: 'msg_01BenchStream000000000001',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-6',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: 1200,
        output_tokens: 1,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      },
    },
  });
  push('ping', {});
  push('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
  for (const text of p.deltas) {
    push('content_block_delta', { index: 0, delta: { type: 'text_delta', text } });
  }
  push('content_block_stop', { index: 0 });
  p.tools.forEach((tool, t) => {
    const index = t + 1;
    push('content_block_start', {
      index,
      content_block: {
        type: 'tool_use',
        id: `toolu_01BenchTool${String(t).padStart(12, '0')}`,
        name: tool.name,
        input: {},
      },
    });
    push('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: '' } });
    for (const partial_json of tool.fragments) {
      push('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } });
    }
    push('content_block_stop', { index });
  });
  push('message_delta', {
    delta: { stop_reason: 'tool_use', stop_sequence: null },
    usage: { output_tokens: 25_000 },
  });
  push('message_stop', {});
  return {
    provider: 'anthropic',
    contentType: 'text/event-stream',
    events,
    dataEvents: data,
    expected: expectedOf(p, false),
  };
}

/** Chat Completions SSE with the final usage chunk (`stream_options.include_usage`). */
function chatCompletions(p: Plan, provider: 'openai' | 'openrouter'): WireStream {
  const events: string[] = [];
  let data = 0;
  const base =
    provider === 'openai'
      ? {
          id: 'chatcmpl-BenchStream0001',
          object: 'chat.completion.chunk',
          created: 1767225600,
          model: 'gpt-5-2025-08-07',
          service_tier: 'default',
          system_fingerprint: null,
        }
      : {
          id: 'gen-1767225600-BenchStream0001',
          object: 'chat.completion.chunk',
          created: 1767225600,
          model: 'anthropic/claude-sonnet-4.6',
          provider: 'Anthropic',
        };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => {
    events.push(
      sse(null, {
        ...base,
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
        ...(provider === 'openai' ? { usage: null } : {}),
      }),
    );
    data++;
  };
  if (provider === 'openrouter') events.push(': OPENROUTER PROCESSING\n\n');
  chunk({ role: 'assistant', content: '' });
  for (const content of p.deltas) chunk({ content });
  p.tools.forEach((tool, index) => {
    chunk({
      tool_calls: [
        {
          index,
          id: `call_BenchTool${String(index).padStart(10, '0')}`,
          type: 'function',
          function: { name: tool.name, arguments: '' },
        },
      ],
    });
    for (const args of tool.fragments) {
      chunk({ tool_calls: [{ index, function: { arguments: args } }] });
    }
  });
  chunk({}, 'tool_calls');
  events.push(
    sse(null, {
      ...base,
      choices: [],
      usage: {
        prompt_tokens: 1200,
        completion_tokens: 25_000,
        total_tokens: 26_200,
        prompt_tokens_details: { cached_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0 },
      },
    }),
  );
  data++;
  events.push(sse(null, '[DONE]'));
  return {
    provider,
    contentType: 'text/event-stream',
    events,
    dataEvents: data,
    expected: expectedOf(p, false),
  };
}

/** Ollama `/api/chat` NDJSON: content chunks, tool calls sent whole, the final `done` line. */
function ollama(p: Plan): WireStream {
  const events: string[] = [];
  const line = (body: Record<string, unknown>) =>
    events.push(
      `${JSON.stringify({ model: 'qwen3:8b', created_at: '2026-01-01T00:00:00.000000000Z', ...body })}\n`,
    );
  for (const content of p.deltas) line({ message: { role: 'assistant', content }, done: false });
  for (const tool of p.tools) {
    line({
      message: {
        role: 'assistant',
        content: '',
        tool_calls: [{ function: { name: tool.name, arguments: tool.input } }],
      },
      done: false,
    });
  }
  line({
    message: { role: 'assistant', content: '' },
    done_reason: 'stop',
    done: true,
    total_duration: 9_000_000_000,
    load_duration: 50_000_000,
    prompt_eval_count: 1200,
    prompt_eval_duration: 180_000_000,
    eval_count: 25_000,
    eval_duration: 8_500_000_000,
  });
  return {
    provider: 'ollama',
    contentType: 'application/x-ndjson',
    events,
    dataEvents: events.length,
    expected: expectedOf(p, true),
  };
}

/** The long response for `provider`. */
export function buildWireStream(
  provider: StreamProvider,
  size: StreamSize = DEFAULT_STREAM_SIZE,
): WireStream {
  const p = plan(size);
  switch (provider) {
    case 'anthropic':
      return anthropic(p);
    case 'openai':
    case 'openrouter':
      return chatCompletions(p, provider);
    case 'openai-responses':
      return openAIResponses(p);
    case 'ollama':
      return ollama(p);
  }
}

/** Events joined into the writes the server makes (64 events a write, like a busy provider). */
export function writesOf(stream: WireStream, eventsPerWrite = 64): string[] {
  const writes: string[] = [];
  for (let i = 0; i < stream.events.length; i += eventsPerWrite) {
    writes.push(stream.events.slice(i, i + eventsPerWrite).join(''));
  }
  return writes;
}
