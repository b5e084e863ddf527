import { fork } from 'node:child_process';
import { GoogleGenAI } from '@google/genai';
import {
  type ContentBlock,
  createMessage,
  newRequestId,
  newSessionId,
  type StreamEvent,
} from '@yourtool/core';
import { GoogleAdapter } from '@yourtool/google';
import {
  check,
  interleave,
  peakRss,
  type RunOptions,
  type ScenarioResult,
  type Timing,
} from '../lib/harness.js';
import { BENCH_TOOLS } from '../lib/session.js';
import { buildGeminiWireStream } from './google-wire.js';
import type { ExpectedContent } from './wire.js';

/** What one pass over a stream saw. */
interface Seen {
  textDeltas: number;
  toolFragments: number;
  text: string;
  tools: Array<{ name: string; input: Record<string, unknown> }>;
}

const PROMPT = 'Write the long answer, then call the tools.';
const MODEL = 'gemini-3-pro-preview';

async function startServer() {
  const child = fork(new URL('./google-server.ts', import.meta.url), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const replies: Array<(reply: Record<string, string>) => void> = [];
  child.on('message', (reply: Record<string, string>) => replies.shift()?.(reply));
  const next = () => new Promise<Record<string, string>>((resolve) => replies.push(resolve));
  const ready = await next();
  if (!ready.ready) throw new Error('the loopback server did not start');
  return {
    url: ready.ready,
    enqueue: async () => {
      const reply = next();
      child.send({ enqueue: 'google' });
      await reply;
    },
    close: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.send({ close: true });
      await exited;
    },
  };
}

function contenders(url: string): Record<'ours' | 'baseline', () => Promise<Seen>> {
  const client = new GoogleGenAI({ apiKey: 'bench', httpOptions: { baseUrl: url } });
  const adapter = new GoogleAdapter({ api_key: 'bench', base_url: url, max_retries: 0 });
  return {
    baseline: async () => {
      const seen: Seen = { textDeltas: 0, toolFragments: 0, text: '', tools: [] };
      const stream = await client.models.generateContentStream({
        model: MODEL,
        contents: [{ role: 'user', parts: [{ text: PROMPT }] }],
        config: {
          maxOutputTokens: 64_000,
          tools: [
            {
              functionDeclarations: BENCH_TOOLS.map((t) => ({
                name: t.name,
                description: t.description,
                parametersJsonSchema: t.input_schema,
              })),
            },
          ],
        },
      });
      for await (const chunk of stream) {
        for (const part of chunk.candidates?.[0]?.content?.parts ?? []) {
          if (part.text) {
            seen.textDeltas++;
            seen.text += part.text;
          } else if (part.functionCall) {
            seen.toolFragments++;
            seen.tools.push({
              name: part.functionCall.name ?? '',
              input: (part.functionCall.args ?? {}) as Record<string, unknown>,
            });
          }
        }
      }
      return seen;
    },
    ours: async () => {
      const session_id = newSessionId();
      const events: AsyncIterable<StreamEvent> = adapter.stream({
        request_id: newRequestId(),
        model: `google:${MODEL}`,
        messages: [
          createMessage({ session_id, role: 'user', content: [{ type: 'text', text: PROMPT }] }),
        ],
        tools: BENCH_TOOLS,
        max_output_tokens: 64_000,
        stream: true,
      });
      const seen: Seen = { textDeltas: 0, toolFragments: 0, text: '', tools: [] };
      let final: ContentBlock[] = [];
      for await (const event of events) {
        if (event.type === 'text.delta') seen.textDeltas++;
        else if (event.type === 'tool.use_input_delta') seen.toolFragments++;
        else if (event.type === 'message.complete') final = event.final_content;
      }
      for (const block of final) {
        if (block.type === 'text') seen.text += block.text;
        else if (block.type === 'tool_use')
          seen.tools.push({ name: block.name, input: block.input });
      }
      return seen;
    },
  };
}

function checkSeen(label: string, seen: Seen | undefined, expected: ExpectedContent): string {
  check(seen, `${label}: no repetition ran`);
  check(
    seen.textDeltas === expected.textDeltas,
    `${label} saw ${seen.textDeltas} text deltas, the wire has ${expected.textDeltas}`,
  );
  check(
    seen.toolFragments === expected.toolFragments,
    `${label} saw ${seen.toolFragments} tool calls, the wire has ${expected.toolFragments}`,
  );
  check(seen.text === expected.text, `${label}: the text differs from what was sent`);
  check(
    JSON.stringify(seen.tools) === JSON.stringify(expected.tools),
    `${label}: the tool calls differ from what was sent`,
  );
  return `${label}: ${seen.textDeltas.toLocaleString('en-US')} text deltas, ${seen.tools.length} whole tool calls, text and tool inputs equal to what was sent`;
}

/**
 * The streaming benchmark of Gemini's wire format: our adapter's canonical stream against
 * iterating the official `@google/genai` SDK's `generateContentStream` over the same bytes.
 */
export async function googleStreamingScenario(options: RunOptions): Promise<ScenarioResult> {
  const wire = buildGeminiWireStream();
  const server = await startServer();
  try {
    const run = contenders(server.url);
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
      () => server.enqueue(),
    );
    const checks: string[] = [];
    if (options.only !== 'baseline') checks.push(checkSeen('adapter', last.ours, wire.expected));
    if (options.only !== 'ours') checks.push(checkSeen('SDK', last.baseline, wire.expected));
    const per1k = (t: Timing[], key: keyof Timing) =>
      t.map((x) => (x[key] / wire.dataEvents) * 1000);
    const measurement = (metric: string, key: keyof Timing) => ({
      metric,
      ours: per1k(timings.ours, key),
      baseline: per1k(timings.baseline, key),
      higherIsBetter: false,
    });
    return {
      id: 'streaming/google',
      group: 'streaming',
      title: `google: ${wire.dataEvents.toLocaleString('en-US')} wire events (${wire.expected.textDeltas.toLocaleString('en-US')} text deltas, ${wire.expected.tools.length} tool calls sent whole)`,
      baseline: "iterating the official SDK's raw stream (@google/genai) over the same bytes",
      measurements: [
        measurement('CPU ms / 1k events', 'cpuMs'),
        measurement('wall ms / 1k events', 'wallMs'),
      ],
      checks,
      notes: [],
      maxRssBytes: peakRss(),
    };
  } finally {
    await server.close();
  }
}
