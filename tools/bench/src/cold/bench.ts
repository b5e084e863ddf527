/**
 * `cold/<provider>`: what a fresh process pays to import the package and stream one reply. Each
 * repetition is a new `node` process (child.mjs, nothing preloaded) that imports either our
 * adapter (`new AnthropicAdapter(...)` / `new OpenAIAdapter(...)` + `stream()`, as a user would)
 * or the SDK alone, streams one ~1,000-event reply from a loopback server in another process, and
 * reports its own CPU time (user + system since the process started). Pairs interleaved, the
 * side going first alternating. With YOURTOOL_COLD_CPU_PROF=<dir> set, each cold process writes a
 * `--cpu-prof` profile into that directory.
 */
import { execFile, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { check, type RunOptions, type ScenarioResult, type Variant } from '../lib/harness.js';
import { BENCH_TOOLS } from '../lib/session.js';
import { PROMPT } from '../streaming/bench.js';
import { buildWireStream } from '../streaming/wire.js';
import type { ColdServerCommand, ColdServerReply } from './server.js';
import { COLD_STREAM_SIZE } from './size.js';

/** The providers with a cold-start scenario. */
export const COLD_PROVIDERS = ['anthropic', 'openai'] as const;
/** A provider with a cold-start scenario. */
export type ColdProvider = (typeof COLD_PROVIDERS)[number];

const CHILD = fileURLToPath(new URL('./child.mjs', import.meta.url));
const SDKS: Record<ColdProvider, string> = {
  anthropic: '`@anthropic-ai/sdk` alone, `messages.create({ stream: true })` iterated',
  openai: '`openai` alone, `chat.completions.create({ stream: true })` iterated',
};

/** What one cold process reported. */
interface ColdRun {
  importedMs: number;
  totalMs: number;
  maxRssBytes: number;
  textDeltas: number;
  toolFragments: number;
  text: string;
}

/** Starts the cold scenarios' loopback server process. */
async function startColdServer() {
  const child = fork(new URL('./server.ts', import.meta.url), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const replies: Array<(reply: ColdServerReply) => void> = [];
  child.on('message', (reply: ColdServerReply) => replies.shift()?.(reply));
  const next = () => new Promise<ColdServerReply>((resolve) => replies.push(resolve));
  const ready = await next();
  if (!('ready' in ready)) throw new Error('the cold loopback server did not start');
  return {
    url: ready.ready,
    enqueue: async (provider: ColdProvider) => {
      const reply = next();
      child.send({ enqueue: provider } satisfies ColdServerCommand);
      await reply;
    },
    close: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.send({ close: true } satisfies ColdServerCommand);
      await exited;
    },
  };
}

/** Runs one cold process of `variant` against the server at `url`. */
async function coldRun(provider: ColdProvider, variant: Variant, url: string): Promise<ColdRun> {
  const inputs = JSON.stringify({ prompt: PROMPT, tools: BENCH_TOOLS });
  const side = variant === 'ours' ? 'ours' : 'raw';
  // YOURTOOL_COLD_CPU_PROF=<dir>: each cold process writes a `--cpu-prof` profile there
  const profileDir = process.env.YOURTOOL_COLD_CPU_PROF;
  const profile = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const args = [...profile, CHILD, provider, side, url, inputs];
  const { stdout } = await promisify(execFile)(process.execPath, args, {
    maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(stdout) as ColdRun;
}

/** `cold/<provider>`: import plus the first stream, each repetition a fresh process. */
export async function coldScenario(
  provider: ColdProvider,
  options: RunOptions,
): Promise<ScenarioResult> {
  const wire = buildWireStream(provider, COLD_STREAM_SIZE);
  const server = await startColdServer();
  const variants: Variant[] = options.only === 'both' ? ['ours', 'baseline'] : [options.only];
  const runs: Record<Variant, ColdRun[]> = { ours: [], baseline: [] };
  try {
    for (let i = 0; i < options.warmup + options.reps; i++) {
      const order = i % 2 === 0 ? variants : [...variants].reverse();
      for (const variant of order) {
        await server.enqueue(provider);
        const run = await coldRun(provider, variant, server.url);
        if (i >= options.warmup) runs[variant].push(run);
      }
    }
  } finally {
    await server.close();
  }
  const checks: string[] = [];
  for (const variant of variants) {
    for (const run of runs[variant]) {
      check(
        run.textDeltas === wire.expected.textDeltas,
        `${variant}: ${run.textDeltas} text deltas`,
      );
      check(run.text === wire.expected.text, `${variant}: the text differs from what was sent`);
      check(
        run.toolFragments === wire.expected.toolFragments,
        `${variant}: ${run.toolFragments} tool fragments, the wire has ${wire.expected.toolFragments}`,
      );
    }
    checks.push(
      `${variant}: every process saw ${wire.expected.textDeltas} text deltas (text equal to what was sent) and ${wire.expected.toolFragments} tool-argument fragments`,
    );
  }
  const measurement = (metric: string, of: (run: ColdRun) => number) => ({
    metric,
    ours: runs.ours.map(of),
    baseline: runs.baseline.map(of),
    higherIsBetter: false,
  });
  return {
    id: `cold/${provider}`,
    group: 'cold',
    title: `${provider}: a fresh process imports the package and streams one reply of ${wire.dataEvents.toLocaleString('en-US')} wire events`,
    baseline: `a fresh process with ${SDKS[provider]} over the same bytes`,
    measurements: [
      measurement('process CPU ms, start to end of the stream', (r) => r.totalMs),
      measurement('process CPU ms, start to imported (client constructed)', (r) => r.importedMs),
      measurement('process CPU ms, the first stream', (r) => r.totalMs - r.importedMs),
    ],
    checks,
    notes: ['each repetition a fresh `node` process (no tsx); CPU is its user + system time'],
    maxRssBytes: Math.max(0, ...[...runs.ours, ...runs.baseline].map((r) => r.maxRssBytes)),
  };
}
