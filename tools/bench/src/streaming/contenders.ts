/**
 * The two sides of the raw `streaming/<provider>` scenarios: our adapter's canonical stream, and
 * the official SDK's own stream iterated event by event (the least a user of the SDK can do),
 * both over the loopback server at `url`. accumulators.ts has the second baseline.
 */
import Anthropic from '@anthropic-ai/sdk';
import { AnthropicAdapter } from '@yourtool/anthropic';
import type { CanonicalRequestInput, StreamEvent } from '@yourtool/core';
import { OllamaAdapter } from '@yourtool/ollama';
import { OpenAIAdapter, OpenAIResponsesAdapter } from '@yourtool/openai';
import { OpenRouterAdapter } from '@yourtool/openrouter';
import { Ollama } from 'ollama/browser';
import OpenAI from 'openai';
import { BENCH_TOOLS } from '../lib/session.js';
import { canonicalRequest, drainCanonical, PROMPT, type Seen } from './bench.js';
import type { StreamProvider } from './wire.js';

/** One repetition of a side: streams the whole response and returns what it saw. */
export type StreamRun = () => Promise<Seen>;

/** Each side's repetition. */
export type Contenders = Record<'ours' | 'baseline', StreamRun>;

/** An empty {@link Seen}. */
export const nothingSeen = (): Seen => ({ textDeltas: 0, toolFragments: 0, text: '', tools: [] });

/** The base URL the OpenAI SDK and our adapter are given for an OpenAI-style provider. */
export const openAIBaseUrl = (provider: StreamProvider, url: string): string =>
  provider === 'openrouter' ? `${url}/api/v1` : `${url}/v1`;

/** The canonical model id each provider's scenario requests. */
export const MODELS: Record<StreamProvider, string> = {
  anthropic: 'anthropic:claude-sonnet-4-6',
  openai: 'openai:gpt-5',
  'openai-responses': 'openai:gpt-5',
  openrouter: 'openrouter:anthropic/claude-sonnet-4.6',
  ollama: 'ollama:qwen3:8b',
};

/** The wire name of a canonical model id (`openai:gpt-5` → `gpt-5`). */
export const wireModel = (provider: StreamProvider): string => {
  const model = MODELS[provider];
  return model.slice(model.indexOf(':') + 1);
};

/** The SDKs' request bodies: the prompt and the tools, as our adapters send them. */
export const SDK_PARAMS = {
  anthropic: {
    model: wireModel('anthropic'),
    max_tokens: 64_000,
    messages: [{ role: 'user' as const, content: PROMPT }],
    tools: BENCH_TOOLS.map((t) => ({
      name: t.name,
      description: t.description,
      input_schema: t.input_schema as Anthropic.Tool.InputSchema,
    })),
  },
  chat: {
    messages: [{ role: 'user' as const, content: PROMPT }],
    tools: BENCH_TOOLS.map((t) => ({
      type: 'function' as const,
      function: { name: t.name, description: t.description, parameters: t.input_schema },
    })),
    stream_options: { include_usage: true },
  },
  responses: {
    model: wireModel('openai-responses'),
    input: [{ role: 'user' as const, content: PROMPT }],
    tools: BENCH_TOOLS.map((t) => ({
      type: 'function' as const,
      name: t.name,
      description: t.description,
      parameters: t.input_schema,
      strict: false,
    })),
    max_output_tokens: 64_000,
    store: false,
    include: ['reasoning.encrypted_content' as const],
  },
};

/** What our side needs of an adapter. */
interface Streams {
  stream(request: CanonicalRequestInput): AsyncIterable<StreamEvent>;
}

/** Our side: the provider's adapter, its canonical stream drained as a user of it would. */
export function ourRun(provider: StreamProvider, url: string): StreamRun {
  const drain = (adapter: Streams) =>
    drainCanonical(adapter.stream(canonicalRequest(MODELS[provider])));
  const config = { api_key: 'bench', max_retries: 0 };
  switch (provider) {
    case 'anthropic': {
      const adapter = new AnthropicAdapter({ ...config, base_url: url });
      return () => drain(adapter);
    }
    case 'openai': {
      const adapter = new OpenAIAdapter({ ...config, base_url: openAIBaseUrl(provider, url) });
      return () => drain(adapter);
    }
    case 'openai-responses': {
      const adapter = new OpenAIResponsesAdapter({
        ...config,
        base_url: openAIBaseUrl(provider, url),
      });
      return () => drain(adapter);
    }
    case 'openrouter': {
      const adapter = new OpenRouterAdapter({ ...config, base_url: openAIBaseUrl(provider, url) });
      return () => drain(adapter);
    }
    case 'ollama': {
      const adapter = new OllamaAdapter(
        { base_url: url, max_retries: 0, options: { detect_capabilities: false } },
        { capabilityOverrides: { [MODELS.ollama]: { supports_tools: true } } },
      );
      return () => drain(adapter);
    }
  }
}

/** The SDK client of an OpenAI-style provider (retries off, as our adapters turn them off). */
export const openAIClient = (provider: StreamProvider, url: string): OpenAI =>
  new OpenAI({
    apiKey: 'bench',
    baseURL: openAIBaseUrl(provider, url),
    maxRetries: 0,
    logLevel: 'off',
  });

/** The Anthropic SDK client (retries off). */
export const anthropicClient = (url: string): Anthropic =>
  new Anthropic({ apiKey: 'bench', baseURL: url, maxRetries: 0, logLevel: 'off' });

/** Iterates the Anthropic SDK's raw stream, joining text and tool arguments by block. */
function anthropicRaw(client: Anthropic): StreamRun {
  return async () => {
    const seen = nothingSeen();
    const args: string[] = [];
    const names: string[] = [];
    const stream = await client.messages.create({ ...SDK_PARAMS.anthropic, stream: true });
    for await (const event of stream) {
      if (event.type === 'content_block_delta') {
        const delta = event.delta;
        if (delta.type === 'text_delta' && delta.text !== '') {
          seen.textDeltas++;
          seen.text += delta.text;
        } else if (delta.type === 'input_json_delta' && delta.partial_json !== '') {
          seen.toolFragments++;
          args[event.index] = (args[event.index] ?? '') + delta.partial_json;
        }
      } else if (event.type === 'content_block_start' && event.content_block.type === 'tool_use') {
        names[event.index] = event.content_block.name;
      }
    }
    names.forEach((name, i) => {
      seen.tools.push({ name, input: JSON.parse(args[i] ?? '{}') });
    });
    return seen;
  };
}

/** Iterates the OpenAI SDK's raw Chat Completions stream, joining tool arguments by index. */
function chatRaw(client: OpenAI, model: string): StreamRun {
  return async () => {
    const seen = nothingSeen();
    const calls: Array<{ name: string; args: string }> = [];
    const stream = await client.chat.completions.create({
      ...SDK_PARAMS.chat,
      model,
      stream: true,
    });
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta;
      if (!delta) continue;
      if (delta.content) {
        seen.textDeltas++;
        seen.text += delta.content;
      }
      for (const call of delta.tool_calls ?? []) {
        const entry = calls[call.index] ?? { name: '', args: '' };
        calls[call.index] = entry;
        if (call.function?.name) entry.name = call.function.name;
        if (call.function?.arguments) {
          seen.toolFragments++;
          entry.args += call.function.arguments;
        }
      }
    }
    for (const call of calls) seen.tools.push({ name: call.name, input: JSON.parse(call.args) });
    return seen;
  };
}

/** Iterates the OpenAI SDK's raw Responses stream, joining arguments by output index. */
function responsesRaw(client: OpenAI): StreamRun {
  return async () => {
    const seen = nothingSeen();
    const calls: Array<{ name: string; args: string }> = [];
    const stream = await client.responses.create({ ...SDK_PARAMS.responses, stream: true });
    for await (const event of stream) {
      if (event.type === 'response.output_text.delta') {
        if (event.delta !== '') {
          seen.textDeltas++;
          seen.text += event.delta;
        }
      } else if (event.type === 'response.function_call_arguments.delta') {
        const call = calls[event.output_index];
        if (call && event.delta !== '') {
          seen.toolFragments++;
          call.args += event.delta;
        }
      } else if (
        event.type === 'response.output_item.added' &&
        event.item.type === 'function_call'
      ) {
        calls[event.output_index] = { name: event.item.name, args: event.item.arguments };
      }
    }
    for (const call of calls) {
      if (call) seen.tools.push({ name: call.name, input: JSON.parse(call.args) });
    }
    return seen;
  };
}

/** Iterates the `ollama` SDK's NDJSON stream (tool calls come whole). */
function ollamaRaw(client: Ollama): StreamRun {
  return async () => {
    const seen = nothingSeen();
    const stream = await client.chat({
      model: wireModel('ollama'),
      messages: [{ role: 'user', content: PROMPT }],
      tools: SDK_PARAMS.chat.tools,
      stream: true,
    });
    for await (const chunk of stream) {
      if (chunk.message.content) {
        seen.textDeltas++;
        seen.text += chunk.message.content;
      }
      for (const call of chunk.message.tool_calls ?? []) {
        seen.toolFragments++;
        seen.tools.push({ name: call.function.name, input: call.function.arguments });
      }
    }
    return seen;
  };
}

/** The raw-SDK baseline of `provider`. */
export function rawBaseline(provider: StreamProvider, url: string): StreamRun {
  switch (provider) {
    case 'anthropic':
      return anthropicRaw(anthropicClient(url));
    case 'openai':
    case 'openrouter':
      return chatRaw(openAIClient(provider, url), wireModel(provider));
    case 'openai-responses':
      return responsesRaw(openAIClient(provider, url));
    case 'ollama':
      return ollamaRaw(new Ollama({ host: url }));
  }
}

/** Baseline (the SDK's raw stream) and ours for one provider, over the server at `url`. */
export function rawContenders(provider: StreamProvider, url: string): Contenders {
  return { baseline: rawBaseline(provider, url), ours: ourRun(provider, url) };
}
