import { AnthropicAdapter } from '@yourtool/anthropic';
import {
  type CallOptions,
  type CanonicalRequestInput,
  createMessage,
  newRequestId,
  newSessionId,
  type ProviderAdapter,
  type StreamEvent,
  type ToolDefinitionInput,
} from '@yourtool/core';
import { GoogleAdapter } from '@yourtool/google';
import { OllamaAdapter } from '@yourtool/ollama';
import { OpenAIAdapter } from '@yourtool/openai';
import { OpenAICompatibleAdapter } from '@yourtool/openai-compatible';
import type { WireFormat } from '../src/index.js';

/** One adapter under test, and what its wire format can say. */
export interface AdapterCase {
  name: string;
  format: WireFormat;
  model: string;
  /** The adapter, talking to `url`, with {@link GENEROUS_DEADLINES} unless given others. */
  create(url: string, deadlines?: Deadlines): ProviderAdapter;
  /** Streams tool input as fragments (else calls arrive whole). */
  toolFragments: boolean;
  /** Why thinking cannot be tested here, when it cannot. */
  noThinking?: string;
  /** Carries a signature with thinking. */
  signedThinking: boolean;
  /** Carries redacted thinking. */
  redactedThinking: boolean;
  /** Reports cache reads apart from the prompt. */
  reportsCachedTokens: boolean;
}

const KEY = 'sk-testing-adapter-key-0000';

/** An adapter's deadlines, in seconds: between two chunks, and for the whole call. */
export interface Deadlines {
  idle_timeout_seconds: number;
  timeout_seconds: number;
}

/**
 * Deadlines a loaded machine meets: a 20 ms chunk gap took over 0.5 s while several suites
 * shared two CPUs, so only the stall test, which waits for a deadline, uses short ones.
 */
export const GENEROUS_DEADLINES: Deadlines = { idle_timeout_seconds: 10, timeout_seconds: 30 };

/** Short deadlines: a stall ends the call quickly (before the first chunk only the overall one applies). */
export const STALL_DEADLINES: Deadlines = { idle_timeout_seconds: 0.5, timeout_seconds: 2 };

// no retries: one request per call
const common = (deadlines: Deadlines) => ({ api_key: KEY, max_retries: 0, ...deadlines });

// Bedrock's format runs these scenarios through the real adapter in
// packages/bedrock/test/scripted-provider.test.ts: a devDependency of this package on
// @yourtool/bedrock would close a turbo build cycle (bedrock devDepends on testing).
export const ADAPTERS: readonly AdapterCase[] = [
  {
    name: 'anthropic',
    format: 'anthropic',
    model: 'anthropic:claude-sonnet-4-6',
    create: (url, deadlines = GENEROUS_DEADLINES) =>
      new AnthropicAdapter({ ...common(deadlines), base_url: url }),
    toolFragments: true,
    signedThinking: true,
    redactedThinking: true,
    reportsCachedTokens: true,
  },
  {
    name: 'openai (chat completions)',
    format: 'openai-chat',
    model: 'openai:gpt-5',
    create: (url, deadlines = GENEROUS_DEADLINES) =>
      new OpenAIAdapter({ ...common(deadlines), base_url: `${url}/v1` }),
    toolFragments: true,
    noThinking: "OpenAI's Chat Completions carries no reasoning (use the Responses API)",
    signedThinking: false,
    redactedThinking: false,
    reportsCachedTokens: true,
  },
  {
    name: 'openai (responses)',
    format: 'openai-responses',
    model: 'openai:gpt-5',
    create: (url, deadlines = GENEROUS_DEADLINES) =>
      new OpenAIAdapter({
        ...common(deadlines),
        base_url: `${url}/v1`,
        options: { api: 'responses' },
      }),
    toolFragments: true,
    signedThinking: true,
    redactedThinking: true,
    reportsCachedTokens: true,
  },
  {
    name: 'google',
    format: 'gemini',
    model: 'google:gemini-2.5-flash',
    create: (url, deadlines = GENEROUS_DEADLINES) =>
      new GoogleAdapter({ ...common(deadlines), base_url: url }),
    toolFragments: false,
    signedThinking: true,
    redactedThinking: false,
    reportsCachedTokens: true,
  },
  {
    name: 'ollama',
    format: 'ollama',
    model: 'ollama:qwen3:8b',
    create: (url, deadlines = GENEROUS_DEADLINES) =>
      new OllamaAdapter({ ...common(deadlines), api_key: null, base_url: url }),
    toolFragments: false,
    signedThinking: false,
    redactedThinking: false,
    reportsCachedTokens: false,
  },
  {
    name: 'openai-compatible',
    format: 'openai-chat',
    model: 'local:qwen3-8b',
    create: (url, deadlines = GENEROUS_DEADLINES) =>
      new OpenAICompatibleAdapter({
        ...common(deadlines),
        base_url: `${url}/v1`,
        options: {
          provider: 'local',
          models: { 'qwen3-8b': { supports_tools: true, supports_thinking: true } },
        },
      }),
    toolFragments: true,
    signedThinking: false,
    redactedThinking: false,
    reportsCachedTokens: true,
  },
];

export const READ_FILE: ToolDefinitionInput = {
  name: 'read_file',
  description: 'Read a file of the workspace.',
  input_schema: {
    type: 'object',
    properties: { path: { type: 'string' } },
    required: ['path'],
  },
  side_effects: 'read',
};

/** A one-message request to `model`. */
export function request(
  model: string,
  text: string,
  extra: Partial<CanonicalRequestInput> = {},
): CanonicalRequestInput {
  return {
    request_id: newRequestId(),
    model,
    max_output_tokens: 1024,
    messages: [
      createMessage({
        session_id: newSessionId(),
        role: 'user',
        content: [{ type: 'text', text }],
      }),
    ],
    ...extra,
  };
}

/** Everything a stream yielded, and what it threw. */
export async function collect(
  adapter: ProviderAdapter,
  input: CanonicalRequestInput,
  options: CallOptions = {},
  onEvent: (event: StreamEvent) => void = () => {},
): Promise<{ events: StreamEvent[]; error: unknown }> {
  const events: StreamEvent[] = [];
  try {
    for await (const event of adapter.stream({ ...input, stream: true }, options)) {
      events.push(event);
      onEvent(event);
    }
    return { events, error: undefined };
  } catch (error) {
    return { events, error };
  }
}

/** The `message.complete` event of a stream. */
export function completion(events: readonly StreamEvent[]) {
  const last = events.find((e) => e.type === 'message.complete');
  if (last?.type !== 'message.complete') throw new Error('no message.complete event');
  return last;
}
