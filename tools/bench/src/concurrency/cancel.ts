/**
 * `concurrency/cancel`: a wave of turns cancelled at once. N sessions start a turn each; once
 * every stream has delivered a few deltas, all are cancelled in one go (ours: `cancel(id)` on
 * the manager; the raw SDK: each request's AbortController). Checks that every cancelled turn
 * is stored as `cancelled` and that the server sees every stream closed.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  check,
  collectGarbage,
  peakRss,
  type RunOptions,
  type ScenarioResult,
  type Variant,
} from '../lib/harness.js';
import { checkResourcesBack, markResources } from './checks.js';
import { CANCEL_TURN, promptOf } from './script.js';
import { type ConcurrencySetup, setUpConcurrency } from './setup.js';
import { WIRE_MODEL } from './sides.js';

/** Turns in the cancel wave. */
export const CANCEL_SESSIONS = 250;
/** Deltas every stream has delivered before the wave. */
const DELTAS_BEFORE_CANCEL = 4;

interface WaveFigures {
  settleMs: number;
  cpuMs: number;
}

/** Resolves once `count` streams have each seen {@link DELTAS_BEFORE_CANCEL} deltas. */
function streamsUnderway(count: number) {
  let ready = 0;
  let resolve: () => void = () => undefined;
  const all = new Promise<void>((r) => {
    resolve = r;
  });
  return {
    all,
    tracker: () => {
      let deltas = 0;
      return () => {
        if (++deltas === DELTAS_BEFORE_CANCEL && ++ready === count) resolve();
      };
    },
  };
}

/** Runs the wave and measures from the cancel to every turn having ended. */
async function wave(
  count: number,
  start: (onDelta: () => () => void) => Array<Promise<string>>,
  cancelAll: () => void,
): Promise<WaveFigures> {
  const underway = streamsUnderway(count);
  const turns = start(underway.tracker);
  await underway.all;
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  cancelAll();
  const cancelled = await Promise.all(turns);
  const settleMs = performance.now() - t0;
  const used = process.cpuUsage(cpu);
  const ends = new Map<string, number>();
  for (const end of cancelled) ends.set(end, (ends.get(end) ?? 0) + 1);
  check(
    cancelled.every((end) => end === 'cancelled'),
    `${count - (ends.get('cancelled') ?? 0)} turns did not end cancelled: ${[...ends].map(([e, n]) => `${n} ${e}`).join(', ')}`,
  );
  return {
    settleMs,
    cpuMs: (used.user + used.system) / 1000,
  };
}

async function oursWave(setup: ConcurrencySetup, count: number, rep: number): Promise<WaveFigures> {
  const ids: string[] = [];
  for (let s = 0; s < count; s++)
    ids.push((await setup.manager.createSession({ workspace_path: setup.dir })).id);
  const figures = await wave(
    count,
    (tracker) =>
      ids.map(async (id, session) => {
        const onDelta = tracker();
        let end: string | null = null;
        try {
          for await (const event of setup.manager.send(
            id,
            promptOf({ side: 'ours', rep, session, turn: CANCEL_TURN }),
          )) {
            if (event.type === 'text.delta') onDelta();
            else if (event.type === 'session.turn_complete') end = event.result.end;
          }
        } catch (error) {
          end = (error as Error).name === 'CancelledError' ? 'cancelled' : (error as Error).message;
        }
        return end ?? 'no turn_complete';
      }),
    () => {
      for (const id of ids) setup.manager.cancel(id);
    },
  );
  await checkStreamsClosed(setup, count, 'ours');
  for (const id of ids) {
    const { messages } = await setup.store.loadMessages(id);
    const assistants = messages.filter((m) => m.role === 'assistant');
    check(
      assistants.length === 1 && assistants[0]?.metadata.status === 'cancelled',
      `session ${id} stored ${assistants.map((m) => m.metadata.status).join(', ') || 'no reply'}, expected one cancelled reply`,
    );
  }
  return figures;
}

async function rawWave(setup: ConcurrencySetup, count: number, rep: number): Promise<WaveFigures> {
  const controllers = Array.from({ length: count }, () => new AbortController());
  const figures = await wave(
    count,
    (tracker) =>
      controllers.map(async (controller, session) => {
        const onDelta = tracker();
        try {
          const stream = await setup.client.messages.create(
            {
              model: WIRE_MODEL,
              max_tokens: 4096,
              messages: [
                {
                  role: 'user',
                  content: promptOf({ side: 'raw', rep, session, turn: CANCEL_TURN }),
                },
              ],
              stream: true,
            },
            { signal: controller.signal },
          );
          for await (const event of stream) {
            if (event.type === 'content_block_delta') onDelta();
          }
          // the SDK's stream ends its iteration quietly when its request is aborted
          return controller.signal.aborted ? 'cancelled' : 'completed';
        } catch (error) {
          return controller.signal.aborted ? 'cancelled' : (error as Error).message;
        }
      }),
    () => {
      for (const controller of controllers) controller.abort();
    },
  );
  await checkStreamsClosed(setup, count, 'raw');
  return figures;
}

/** Right after a wave: the server must see every stream closed before its end, none open. */
async function checkStreamsClosed(setup: ConcurrencySetup, count: number, side: string) {
  const aborted = await streamsClosed(setup);
  check(aborted === count, `${side}: the server saw ${aborted} of ${count} streams closed early`);
}

/** Waits until the server has no stream open; returns how many it saw closed early. */
async function streamsClosed(setup: ConcurrencySetup): Promise<number> {
  let aborted = 0;
  for (let i = 0; i < 50; i++) {
    const stats = await setup.server.stats();
    aborted += stats.aborted;
    if (stats.open === 0) return aborted;
    await sleep(100);
  }
  throw new Error('sanity check failed: streams still open on the server 5 s after the cancel');
}

/** Sets up, runs the waves (the sides alternating) and closes. */
async function measureWaves(
  count: number,
  options: RunOptions,
): Promise<Record<Variant, WaveFigures[]>> {
  const setup = await setUpConcurrency('sqlite', 'cancel');
  const runs: Record<Variant, WaveFigures[]> = { ours: [], baseline: [] };
  const variants: Variant[] = options.only === 'both' ? ['ours', 'baseline'] : [options.only];
  const warmup = options.only === 'both' ? options.warmup : 0;
  try {
    for (let rep = 0; rep < warmup + options.reps; rep++) {
      for (const variant of rep % 2 === 0 ? variants : [...variants].reverse()) {
        collectGarbage();
        const figures =
          variant === 'ours' ? await oursWave(setup, count, rep) : await rawWave(setup, count, rep);
        if (rep >= warmup) runs[variant].push(figures);
      }
    }
  } finally {
    await setup.close();
  }
  return runs;
}

/** The cancel-wave scenario; see the module comment. */
export async function cancelScenario(count: number, options: RunOptions): Promise<ScenarioResult> {
  const start = await markResources();
  // everything the waves used is unreachable once measureWaves returns: then the heap is checked
  const runs = await measureWaves(count, options);
  const resources = await checkResourcesBack(start);
  const metric = (name: string, field: keyof WaveFigures) => ({
    metric: name,
    higherIsBetter: false,
    ours: runs.ours.map((f) => f[field]),
    baseline: runs.baseline.map((f) => f[field]),
  });
  return {
    id: 'concurrency/cancel',
    group: 'concurrency',
    title: `${count} streaming turns on a SQLite store cancelled at once, each after ${DELTAS_BEFORE_CANCEL} text deltas`,
    baseline: `${count} raw Anthropic SDK streams aborted at once (one AbortController each), same process and server`,
    measurements: [
      metric('ms from the cancel to every turn ended', 'settleMs'),
      metric('CPU ms of the cancel wave', 'cpuMs'),
    ],
    checks: [
      `every cancelled turn stored as one cancelled reply (ours), every stream closed on the server (both sides, ${count} a wave)`,
      resources,
    ],
    notes: [],
    maxRssBytes: peakRss(),
  };
}
