import { fork } from 'node:child_process';
import Anthropic from '@anthropic-ai/sdk';
import { AnthropicAdapter } from '@yourtool/anthropic';
import {
  type CanonicalRequestInput,
  type ContentBlock,
  createMessage,
  newRequestId,
  newSessionId,
  type StreamEvent,
} from '@yourtool/core';
import { OllamaAdapter } from '@yourtool/ollama';
import { OpenAIAdapter } from '@yourtool/openai';
import { OpenRouterAdapter } from '@yourtool/openrouter';
import { Ollama } from 'ollama/browser';
import OpenAI from 'openai';
import {
  check,
  interleave,
  peakRss,
  type RunOptions,
  type ScenarioResult,
  type Timing,
  type Variant,
} from '../lib/harness.js';
import { BENCH_TOOLS } from '../lib/session.js';
import type { ServerCommand, ServerReply } from './server.js';
import { buildWireStream, type ExpectedContent, type StreamProvider } from './wire.js';

/** What one pass over a stream saw. */
export interface Seen {
  textDeltas: number;
  toolFragments: number;
  text: string;
  tools: Array<{ name: string; input: Record<string, unknown> }>;
}

/** The prompt of every streaming scenario's request. */
export const PROMPT = 'Write the long answer, then call the tools.';

/** Starts the loopback server process and returns its URL and a way to queue a response. */
export async function startServer() {
  const child = fork(new URL('./server.ts', import.meta.url), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const replies: Array<(reply: ServerReply) => void> = [];
  child.on('message', (reply: ServerReply) => replies.shift()?.(reply));
  const next = () => new Promise<ServerReply>((resolve) => replies.push(resolve));
  const ready = await next();
  if (!('ready' in ready)) throw new Error('the loopback server did not start');
  return {
    url: ready.ready,
    enqueue: async (provider: StreamProvider) => {
      const reply = next();
      child.send({ enqueue: provider } satisfies ServerCommand);
      await reply;
    },
    close: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.send({ close: true } satisfies ServerCommand);
      await exited;
    },
  };
}

/** Iterates our adapter's canonical stream, as a user of the adapter would. */
export async function drainCanonical(events: AsyncIterable<StreamEvent>): Promise<Seen> {
  const seen: Seen = { textDeltas: 0, toolFragments: 0, text: '', tools: [] };
  let final: ContentBlock[] = [];
  for await (const event of events) {
    if (event.type === 'text.delta') seen.textDeltas++;
    else if (event.type === 'tool.use_input_delta') seen.toolFragments++;
    else if (event.type === 'message.complete') final = event.final_content;
  }
  for (const block of final) {
    if (block.type === 'text') seen.text += block.text;
    else if (block.type === 'tool_use') seen.tools.push({ name: block.name, input: block.input });
  }
  return seen;
}

/** The request our adapters get: one user message, the tools, streaming on. */
export function canonicalRequest(model: string): CanonicalRequestInput {
  const session_id = newSessionId();
  return {
    request_id: newRequestId(),
    model,
    messages: [
      createMessage({ session_id, role: 'user', content: [{ type: 'text', text: PROMPT }] }),
    ],
    tools: BENCH_TOOLS,
    max_output_tokens: 64_000,
    stream: true,
  };
}

const wireTools = BENCH_TOOLS.map((t) => ({
  type: 'function' as const,
  function: { name: t.name, description: t.description, parameters: t.input_schema },
}));

/** Baseline and ours for one provider, over the server at `url`. */
function contenders(
  provider: StreamProvider,
  url: string,
): Record<'ours' | 'baseline', () => Promise<Seen>> {
  switch (provider) {
    case 'anthropic': {
      const client = new Anthropic({
        apiKey: 'bench',
        baseURL: url,
        maxRetries: 0,
        logLevel: 'off',
      });
      const adapter = new AnthropicAdapter({ api_key: 'bench', base_url: url, max_retries: 0 });
      return {
        baseline: async () => {
          const seen: Seen = { textDeltas: 0, toolFragments: 0, text: '', tools: [] };
          const args: string[] = [];
          const names: string[] = [];
          const stream = await client.messages.create({
            model: 'claude-sonnet-4-6',
            max_tokens: 64_000,
            messages: [{ role: 'user', content: PROMPT }],
            tools: BENCH_TOOLS.map((t) => ({
              name: t.name,
              description: t.description,
              input_schema: t.input_schema as Anthropic.Tool.InputSchema,
            })),
            stream: true,
          });
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
            } else if (
              event.type === 'content_block_start' &&
              event.content_block.type === 'tool_use'
            ) {
              names[event.index] = event.content_block.name;
            }
          }
          names.forEach((name, i) => {
            seen.tools.push({ name, input: JSON.parse(args[i] ?? '{}') });
          });
          return seen;
        },
        ours: () => drainCanonical(adapter.stream(canonicalRequest('anthropic:claude-sonnet-4-6'))),
      };
    }
    case 'openai':
    case 'openrouter': {
      const baseURL = provider === 'openai' ? `${url}/v1` : `${url}/api/v1`;
      const client = new OpenAI({ apiKey: 'bench', baseURL, maxRetries: 0, logLevel: 'off' });
      const adapter =
        provider === 'openai'
          ? new OpenAIAdapter({ api_key: 'bench', base_url: baseURL, max_retries: 0 })
          : new OpenRouterAdapter({ api_key: 'bench', base_url: baseURL, max_retries: 0 });
      const model =
        provider === 'openai' ? 'openai:gpt-5' : 'openrouter:anthropic/claude-sonnet-4.6';
      return {
        baseline: async () => {
          const seen: Seen = { textDeltas: 0, toolFragments: 0, text: '', tools: [] };
          const calls: Array<{ name: string; args: string }> = [];
          const stream = await client.chat.completions.create({
            model: model.slice(model.indexOf(':') + 1),
            messages: [{ role: 'user', content: PROMPT }],
            tools: wireTools,
            stream: true,
            stream_options: { include_usage: true },
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
          for (const call of calls)
            seen.tools.push({ name: call.name, input: JSON.parse(call.args) });
          return seen;
        },
        ours: () => drainCanonical(adapter.stream(canonicalRequest(model))),
      };
    }
    case 'ollama': {
      const client = new Ollama({ host: url });
      const adapter = new OllamaAdapter(
        { base_url: url, max_retries: 0, options: { detect_capabilities: false } },
        { capabilityOverrides: { 'ollama:qwen3:8b': { supports_tools: true } } },
      );
      return {
        baseline: async () => {
          const seen: Seen = { textDeltas: 0, toolFragments: 0, text: '', tools: [] };
          const stream = await client.chat({
            model: 'qwen3:8b',
            messages: [{ role: 'user', content: PROMPT }],
            tools: wireTools,
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
        },
        ours: () => drainCanonical(adapter.stream(canonicalRequest('ollama:qwen3:8b'))),
      };
    }
  }
}

export function checkSeen(
  label: string,
  seen: Seen | undefined,
  expected: ExpectedContent,
): string {
  check(seen, `${label}: no repetition ran`);
  check(
    seen.textDeltas === expected.textDeltas,
    `${label} saw ${seen.textDeltas} text deltas, the wire has ${expected.textDeltas}`,
  );
  check(
    seen.toolFragments === expected.toolFragments,
    `${label} saw ${seen.toolFragments} tool argument fragments, the wire has ${expected.toolFragments}`,
  );
  check(seen.text === expected.text, `${label}: the text differs from what was sent`);
  check(
    JSON.stringify(seen.tools) === JSON.stringify(expected.tools),
    `${label}: the tool calls differ from what was sent`,
  );
  return `${label}: ${seen.textDeltas.toLocaleString('en-US')} text deltas, ${seen.toolFragments.toLocaleString('en-US')} tool-argument fragments, text and ${seen.tools.length} tool inputs equal to what was sent`;
}

/** The streaming benchmark of one provider's wire format. */
export async function streamingScenario(
  provider: StreamProvider,
  options: RunOptions,
): Promise<ScenarioResult> {
  const wire = buildWireStream(provider);
  const server = await startServer();
  try {
    const run = contenders(provider, server.url);
    const { checks, measurements } = await measureStreaming(options, wire, run, () =>
      server.enqueue(provider),
    );
    return {
      id: `streaming/${provider}`,
      group: 'streaming',
      title: `${provider}: ${wire.dataEvents.toLocaleString('en-US')} wire events (${wire.expected.textDeltas.toLocaleString('en-US')} text deltas, ${wire.expected.tools.length} tool calls${provider === 'ollama' ? ' sent whole' : ` in ${wire.expected.toolFragments.toLocaleString('en-US')} fragments`})`,
      baseline: `iterating the official SDK's raw stream (${provider === 'anthropic' ? '@anthropic-ai/sdk' : provider === 'ollama' ? 'ollama' : 'openai'}) over the same bytes`,
      measurements,
      checks,
      notes: [],
      maxRssBytes: peakRss(),
    };
  } finally {
    await server.close();
  }
}

/**
 * Times both sides of a streaming scenario, interleaved, then checks what each last saw against
 * the wire and reports CPU and wall time per 1,000 wire events.
 */
export async function measureStreaming(
  options: RunOptions,
  wire: { dataEvents: number; expected: ExpectedContent },
  run: Record<'ours' | 'baseline', () => Promise<Seen>>,
  enqueue: (variant: Variant) => Promise<void>,
): Promise<{ checks: string[]; measurements: ScenarioResult['measurements'] }> {
  const last: Partial<Record<'ours' | 'baseline', Seen>> = {};
  const timings = await interleave(
    options,
    {
      ours: async () => {
        last.ours = await run.ours();
      },
      baseline: async () => {
        last.baseline = await run.baseline();
      },
    },
    enqueue,
  );
  const checks: string[] = [];
  if (options.only !== 'baseline') checks.push(checkSeen('adapter', last.ours, wire.expected));
  if (options.only !== 'ours') checks.push(checkSeen('SDK', last.baseline, wire.expected));
  const per1k = (t: Timing[], key: keyof Timing) => t.map((x) => (x[key] / wire.dataEvents) * 1000);
  const measurement = (metric: string, key: keyof Timing) => ({
    metric,
    ours: per1k(timings.ours, key),
    baseline: per1k(timings.baseline, key),
    higherIsBetter: false,
  });
  return {
    checks,
    measurements: [
      measurement('CPU ms / 1k events', 'cpuMs'),
      measurement('wall ms / 1k events', 'wallMs'),
    ],
  };
}
