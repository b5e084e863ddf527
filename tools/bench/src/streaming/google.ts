import { fork } from 'node:child_process';
import { GoogleGenAI } from '@google/genai';
import type { StreamEvent } from '@yourtool/core';
import { GoogleAdapter } from '@yourtool/google';
import { peakRss, type RunOptions, type ScenarioResult } from '../lib/harness.js';
import { BENCH_TOOLS } from '../lib/session.js';
import { canonicalRequest, drainCanonical, measureStreaming, PROMPT, type Seen } from './bench.js';
import { buildGeminiWireStream } from './google-wire.js';
import { NO_ACCUMULATOR } from './scenario.js';

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
    ours: () =>
      drainCanonical(
        adapter.stream(canonicalRequest(`google:${MODEL}`)) as AsyncIterable<StreamEvent>,
      ),
  };
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
    const { checks, measurements } = await measureStreaming(options, wire, run, () =>
      server.enqueue(),
    );
    return {
      id: 'streaming/google',
      group: 'streaming',
      title: `google: ${wire.dataEvents.toLocaleString('en-US')} wire events (${wire.expected.textDeltas.toLocaleString('en-US')} text deltas, ${wire.expected.tools.length} tool calls sent whole)`,
      baseline: "iterating the official SDK's raw stream (@google/genai) over the same bytes",
      measurements,
      checks,
      notes: [NO_ACCUMULATOR('@google/genai')],
      maxRssBytes: peakRss(),
    };
  } finally {
    await server.close();
  }
}
