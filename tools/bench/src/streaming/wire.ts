import { anthropicFormat, ollamaFormat, openAIChatFormat } from '@yourtool/wire-formats';
import { openAIResponses } from './responses-wire.js';
import {
  DEFAULT_STREAM_SIZE,
  expectedOf,
  type Plan,
  plan,
  replyOf,
  type StreamProvider,
  type StreamSize,
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

/** Anthropic Messages API SSE: message_start, ping, a text block, tool_use blocks, the end. */
function anthropic(p: Plan): WireStream {
  const { reply, split } = replyOf(p, (t) => `toolu_01BenchTool${String(t).padStart(12, '0')}`);
  const { chunks } = anthropicFormat({
    messageId: 'msg_01BenchStream000000000001',
    ping: true,
    openingJsonDelta: true,
    withoutNewerFields: true,
    split,
  }).stream({ reply, model: 'claude-sonnet-4-6', seq: 0, body: {} });
  return {
    provider: 'anthropic',
    contentType: 'text/event-stream',
    events: [...chunks],
    dataEvents: chunks.length,
    expected: expectedOf(p, false),
  };
}

/** Chat Completions SSE with the final usage chunk (`stream_options.include_usage`). */
function chatCompletions(p: Plan, provider: 'openai' | 'openrouter'): WireStream {
  const { reply, split } = replyOf(p, (t) => `call_BenchTool${String(t).padStart(10, '0')}`);
  const openai = provider === 'openai';
  const { chunks } = openAIChatFormat({
    completionId: openai ? 'chatcmpl-BenchStream0001' : 'gen-1767225600-BenchStream0001',
    created: 1767225600,
    chunkFields: openai
      ? { service_tier: 'default', system_fingerprint: null }
      : { provider: 'Anthropic' },
    nullUsage: openai,
    withoutRefusal: true,
    leadingComments: openai ? [] : ['OPENROUTER PROCESSING'],
    split,
  }).stream({
    reply,
    model: openai ? 'gpt-5-2025-08-07' : 'anthropic/claude-sonnet-4.6',
    seq: 0,
    body: { stream_options: { include_usage: true } },
  });
  return {
    provider,
    contentType: 'text/event-stream',
    events: [...chunks],
    // the comment and `[DONE]` carry no JSON
    dataEvents: chunks.filter((c) => c.startsWith('data: {')).length,
    expected: expectedOf(p, false),
  };
}

/** Ollama `/api/chat` NDJSON: content chunks, tool calls sent whole, the final `done` line. */
function ollama(p: Plan): WireStream {
  const { reply, split } = replyOf(p, () => '');
  const { chunks } = ollamaFormat({
    durations: {
      total: 9_000_000_000,
      load: 50_000_000,
      promptEval: 180_000_000,
      eval: 8_500_000_000,
    },
    split,
  }).stream({ reply, model: 'qwen3:8b', seq: 0, body: {} });
  return {
    provider: 'ollama',
    contentType: 'application/x-ndjson',
    events: [...chunks],
    dataEvents: chunks.length,
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
