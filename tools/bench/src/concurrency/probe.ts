/**
 * What one side's run measures: CPU per text event, time to first delta per request, the gaps
 * between a stream's deltas, and the event loop's delay over the whole run and during the tool
 * turn. One probe per run; nothing in it outlives the run.
 */
import {
  constants,
  type IntervalHistogram,
  monitorEventLoopDelay,
  type PerformanceEntry,
  PerformanceObserver,
  performance,
} from 'node:perf_hooks';
import { type PhaseProfiler, phaseProfiler } from './phase-profile.js';
import { keyString, type RequestKey } from './script.js';
import { StallWatch } from './stall-watch.js';

/** The figures of one run of one side, in ms (CPU per 1,000 events). */
export interface RunFigures {
  cpuMsPer1000Events: number;
  /** Time in garbage collection (the `gc` performance entries) per 1,000 text events. */
  gcMsPer1000Events: number;
  events: number;
  addedTtftP50: number;
  addedTtftP99: number;
  gapP99: number;
  loopDelayP99: number;
  toolTurnLoopDelayP99: number;
  wallMs: number;
}

/** The `q` quantile (0–1) of `values`, nearest rank. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] as number;
}

/** The name of a `gc` entry's kind (`perf_hooks.constants.NODE_PERFORMANCE_GC_*`). */
function gcKindName(kind: number | undefined): string {
  switch (kind) {
    case constants.NODE_PERFORMANCE_GC_MINOR:
      return 'scavenge';
    case constants.NODE_PERFORMANCE_GC_MAJOR:
      return 'mark-compact';
    case constants.NODE_PERFORMANCE_GC_INCREMENTAL:
      return 'incremental marking';
    case constants.NODE_PERFORMANCE_GC_WEAKCB:
      return 'weak callbacks';
    default:
      return `kind ${kind}`;
  }
}

const histogramP99 = (h: IntervalHistogram) => h.percentile(99) / 1e6;

/** One stream's deltas as the client sees them. */
export interface StreamTracker {
  /** Call on every text delta the caller receives. */
  delta(): void;
}

/** Measures one side's run; see the module comment. */
export class RunProbe {
  #events = 0;
  readonly #firstMs = new Map<string, number>();
  /** Per request key: when the call started, in ms since the epoch (for the detail split). */
  readonly #startedAt = new Map<string, number>();
  readonly #gaps: number[] = [];
  #cpu: NodeJS.CpuUsage = process.cpuUsage();
  #gcMs = 0;
  readonly #gc = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) this.#noteGc(entry);
  });
  /** GC time and count by kind (scavenge, mark-compact, ...), for the detail lines. */
  readonly #gcByKind = new Map<string, { ms: number; count: number }>();
  #started = 0;
  readonly #loop = monitorEventLoopDelay({ resolution: 10 });
  readonly #toolLoop = monitorEventLoopDelay({ resolution: 10 });
  readonly #profiler: PhaseProfiler | null = phaseProfiler();
  /** The loop's long stalls by phase, for the detail lines. */
  readonly #stalls = process.env.YOURTOOL_BENCH_DETAIL ? new StallWatch() : null;

  /** `label` names this run in phase profiles (`<side>-rep<R>`). */
  constructor(readonly label: string) {}

  /**
   * With `YOURTOOL_BENCH_DETAIL` set, on stderr: the run's GC by kind, and each turn and step's
   * added time to first token, split at the request's arrival at the server.
   */
  #printDetail(
    serverFirstMs: Readonly<Record<string, number>>,
    arrivedAt: Readonly<Record<string, number>>,
  ): void {
    const kinds = [...this.#gcByKind].map(
      ([kind, { ms, count }]) => `${kind} ${count}× ${ms.toFixed(0)} ms`,
    );
    process.stderr.write(`[detail] ${this.label} GC by kind: ${kinds.join(', ')}\n`);
    if (this.#stalls) process.stderr.write(`${this.#stalls.summary(this.label)}\n`);
    printByStep(this.#firstMs, serverFirstMs, (id) => {
      const at = arrivedAt[id];
      const from = this.#startedAt.get(id);
      return at === undefined || from === undefined ? Number.NaN : at - from;
    });
  }

  /** Adds one `gc` entry to the run's GC time and to its kind's. */
  #noteGc(entry: PerformanceEntry): void {
    this.#gcMs += entry.duration;
    this.#stalls?.gc(entry);
    // a `gc` entry's `detail` says its kind (typed loosely by @types/node)
    const { detail } = entry as PerformanceEntry & { detail?: { kind?: number } | null };
    const kind = gcKindName(detail?.kind);
    const seen = this.#gcByKind.get(kind) ?? { ms: 0, count: 0 };
    seen.ms += entry.duration;
    seen.count++;
    this.#gcByKind.set(kind, seen);
  }

  /** Starts the clocks (CPU, wall, event-loop delay). */
  start(): void {
    this.#cpu = process.cpuUsage();
    this.#gcMs = 0;
    this.#gcByKind.clear();
    this.#gc.observe({ entryTypes: ['gc'] });
    this.#started = performance.now();
    this.#loop.enable();
    this.#stalls?.start();
  }

  /** A phase (turn `turn` of every session) starts: profiles its opening when asked to. */
  async phase(turn: number, sessions: number): Promise<void> {
    await this.#profiler?.settled();
    this.#stalls?.phase(turn);
    await this.#profiler?.start(`${this.label}-turn${turn}`, sessions);
  }

  /** Resolves once any phase profile still being written is written. */
  settled(): Promise<void> {
    return this.#profiler?.settled() ?? Promise.resolve();
  }

  /** Every session's tool finished at `at` (performance.now() ms): the detail lines say when. */
  toolsFinished(at: number): void {
    this.#stalls?.toolsFinished(at);
  }

  /** The tool turn starts / ends: its event-loop delay is kept apart too. */
  toolTurn(running: boolean): void {
    if (running) this.#toolLoop.enable();
    else this.#toolLoop.disable();
  }

  /** A request about to be made at `startedAt` (performance.now()); returns its delta tracker. */
  stream(key: RequestKey, startedAt: number): StreamTracker {
    let last = -1;
    const id = keyString(key);
    this.#startedAt.set(id, performance.timeOrigin + startedAt);
    return {
      delta: () => {
        const now = performance.now();
        this.#events++;
        if (last < 0) {
          this.#firstMs.set(id, now - startedAt);
          this.#profiler?.firstDelta();
        } else this.#gaps.push(now - last);
        last = now;
      },
    };
  }

  /** Text deltas received so far. */
  get events(): number {
    return this.#events;
  }

  /**
   * Stops the clocks; the server's own time to each first delta (`serverFirstMs`, by key) is
   * subtracted from the client's, request by request.
   */
  finish(
    serverFirstMs: Readonly<Record<string, number>>,
    arrivedAt: Readonly<Record<string, number>> = {},
  ): RunFigures {
    const wallMs = performance.now() - this.#started;
    const used = process.cpuUsage(this.#cpu);
    // entries still queued for the observer are delivered here, before it stops
    for (const entry of this.#gc.takeRecords()) this.#noteGc(entry);
    this.#gc.disconnect();
    this.#loop.disable();
    this.#toolLoop.disable();
    this.#stalls?.stop();
    const added: number[] = [];
    for (const [id, client] of this.#firstMs) {
      const server = serverFirstMs[id];
      if (server !== undefined) added.push(client - server);
    }
    if (process.env.YOURTOOL_BENCH_DETAIL) this.#printDetail(serverFirstMs, arrivedAt);
    if (added.length !== this.#firstMs.size) {
      throw new Error(
        `sanity check failed: the server timed ${added.length} of ${this.#firstMs.size} first deltas`,
      );
    }
    return {
      cpuMsPer1000Events: ((used.user + used.system) / 1000 / this.#events) * 1000,
      gcMsPer1000Events: (this.#gcMs / this.#events) * 1000,
      events: this.#events,
      addedTtftP50: quantile(added, 0.5),
      addedTtftP99: quantile(added, 0.99),
      gapP99: quantile(this.#gaps, 0.99),
      loopDelayP99: histogramP99(this.#loop),
      toolTurnLoopDelayP99: histogramP99(this.#toolLoop),
      wallMs,
    };
  }
}

/**
 * The added time to first token of each turn and step apart, on stderr (which of a run's
 * requests make its p99), split in two: from the call to the request's arrival at the server
 * (`untilArrival`; the server's clock, as ms since the epoch, is the same machine's), and from
 * the first delta leaving the server to the caller receiving it.
 */
function printByStep(
  firstMs: ReadonlyMap<string, number>,
  serverFirstMs: Readonly<Record<string, number>>,
  untilArrival: (id: string) => number,
): void {
  const byStep = new Map<string, { added: number[]; before: number[]; after: number[] }>();
  for (const [id, client] of firstMs) {
    const [side, , , turn, step] = id.split('.');
    const key = `${side} turn ${turn} step ${step}`;
    const lists = byStep.get(key) ?? { added: [], before: [], after: [] };
    const added = client - (serverFirstMs[id] ?? 0);
    lists.added.push(added);
    lists.before.push(untilArrival(id));
    lists.after.push(added - untilArrival(id));
    byStep.set(key, lists);
  }
  for (const [key, { added, before, after }] of byStep) {
    const ms = (list: number[], q: number) => quantile(list, q).toFixed(0);
    // before: from the call to the request's arrival at the server; after: from the first
    // delta leaving the server to the caller receiving it
    process.stderr.write(
      `[detail] ${key}: added TTFT p50 ${ms(added, 0.5)} p99 ${ms(added, 0.99)} max ${ms(added, 1)} ms;` +
        ` until arrival p50 ${ms(before, 0.5)} p99 ${ms(before, 0.99)};` +
        ` after the delta left p50 ${ms(after, 0.5)} p99 ${ms(after, 0.99)}\n`,
    );
  }
}

/** Resolves every waiter at once when the `count`-th arrives (every session's tool finishing). */
export class Barrier {
  #waiting = 0;
  #release: () => void = () => undefined;
  readonly #all: Promise<void>;
  /** performance.now() when the barrier opened. */
  openedAt = 0;

  constructor(readonly count: number) {
    this.#all = new Promise((resolve) => {
      this.#release = resolve;
    });
  }

  /** Waits until all `count` have arrived. */
  arrive(): Promise<void> {
    if (++this.#waiting === this.count) {
      this.openedAt = performance.now();
      this.#release();
    }
    return this.#all;
  }
}
