import { fork } from 'node:child_process';
import {
  type CanonicalRequestInput,
  type ContentBlock,
  createMessage,
  newRequestId,
  newSessionId,
  type StreamEvent,
} from '@yourtool/core';
import {
  check,
  interleave,
  type PairedTimings,
  type RunOptions,
  type ScenarioResult,
  type Timing,
  type Variant,
} from '../lib/harness.js';
import { BENCH_TOOLS } from '../lib/session.js';
import type { ServerCommand, ServerReply } from './server.js';
import type { ExpectedContent, StreamProvider } from './wire.js';

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

/** Checks what one side saw against what the wire carries; returns the check's summary. */
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

/**
 * Times both sides of a streaming scenario, interleaved, twice: in the steady state of a process
 * that streams reply after reply, then with a forced full GC before every repetition (which makes
 * the engine drop what it learned about the shapes of objects no longer alive, so both sides
 * re-optimize part of their code each time). Checks what each side last saw against the wire and
 * reports CPU and wall time per 1,000 wire events.
 */
export async function measureStreaming(
  options: RunOptions,
  wire: { dataEvents: number; expected: ExpectedContent },
  run: Record<'ours' | 'baseline', () => Promise<Seen>>,
  enqueue: (variant: Variant) => Promise<void>,
): Promise<{ checks: string[]; measurements: ScenarioResult['measurements'] }> {
  const last: Partial<Record<'ours' | 'baseline', Seen>> = {};
  const sides = {
    ours: async () => {
      last.ours = await run.ours();
    },
    baseline: async () => {
      last.baseline = await run.baseline();
    },
  };
  const steady = await interleave(options, sides, enqueue, { forceGc: false });
  const afterGc = await interleave({ ...options, warmup: 0 }, sides, enqueue, { forceGc: true });
  const checks: string[] = [];
  if (options.only !== 'baseline') checks.push(checkSeen('adapter', last.ours, wire.expected));
  if (options.only !== 'ours') checks.push(checkSeen('SDK', last.baseline, wire.expected));
  const per1k = (t: Timing[], key: keyof Timing) => t.map((x) => (x[key] / wire.dataEvents) * 1000);
  const measurement = (metric: string, timings: PairedTimings, key: keyof Timing) => ({
    metric,
    ours: per1k(timings.ours, key),
    baseline: per1k(timings.baseline, key),
    higherIsBetter: false,
  });
  return {
    checks,
    measurements: [
      measurement('CPU ms / 1k events', steady, 'cpuMs'),
      measurement('wall ms / 1k events', steady, 'wallMs'),
      measurement('CPU ms / 1k events, each run after a forced full GC', afterGc, 'cpuMs'),
    ],
  };
}
