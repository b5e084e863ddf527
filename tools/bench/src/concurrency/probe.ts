/**
 * What one side's run measures: CPU per text event, time to first delta per request, the gaps
 * between a stream's deltas, and the event loop's delay over the whole run and during the tool
 * turn. One probe per run; nothing in it outlives the run.
 */
import {
  type IntervalHistogram,
  monitorEventLoopDelay,
  PerformanceObserver,
  performance,
} from 'node:perf_hooks';
import { type PhaseProfiler, phaseProfiler } from './phase-profile.js';
import { keyString, type RequestKey } from './script.js';

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
  readonly #gaps: number[] = [];
  #cpu: NodeJS.CpuUsage = process.cpuUsage();
  #gcMs = 0;
  readonly #gc = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) this.#gcMs += entry.duration;
  });
  #started = 0;
  readonly #loop = monitorEventLoopDelay({ resolution: 10 });
  readonly #toolLoop = monitorEventLoopDelay({ resolution: 10 });
  readonly #profiler: PhaseProfiler | null = phaseProfiler();

  /** `label` names this run in phase profiles (`<side>-rep<R>`). */
  constructor(readonly label: string) {}

  /** Starts the clocks (CPU, wall, event-loop delay). */
  start(): void {
    this.#cpu = process.cpuUsage();
    this.#gcMs = 0;
    this.#gc.observe({ entryTypes: ['gc'] });
    this.#started = performance.now();
    this.#loop.enable();
  }

  /** A phase (turn `turn` of every session) starts: profiles its opening when asked to. */
  async phase(turn: number, sessions: number): Promise<void> {
    await this.#profiler?.settled();
    await this.#profiler?.start(`${this.label}-turn${turn}`, sessions);
  }

  /** Resolves once any phase profile still being written is written. */
  settled(): Promise<void> {
    return this.#profiler?.settled() ?? Promise.resolve();
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
  finish(serverFirstMs: Readonly<Record<string, number>>): RunFigures {
    const wallMs = performance.now() - this.#started;
    const used = process.cpuUsage(this.#cpu);
    // entries still queued for the observer are delivered here, before it stops
    for (const entry of this.#gc.takeRecords()) this.#gcMs += entry.duration;
    this.#gc.disconnect();
    this.#loop.disable();
    this.#toolLoop.disable();
    const added: number[] = [];
    for (const [id, client] of this.#firstMs) {
      const server = serverFirstMs[id];
      if (server !== undefined) added.push(client - server);
    }
    if (process.env.YOURTOOL_BENCH_DETAIL) printByStep(this.#firstMs, serverFirstMs);
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
 * With `YOURTOOL_BENCH_DETAIL` set: the added time to first token of each turn and step apart,
 * on stderr (which of a run's requests make its p99).
 */
function printByStep(
  firstMs: ReadonlyMap<string, number>,
  serverFirstMs: Readonly<Record<string, number>>,
): void {
  const byStep = new Map<string, number[]>();
  for (const [id, client] of firstMs) {
    const [side, , , turn, step] = id.split('.');
    const key = `${side} turn ${turn} step ${step}`;
    const list = byStep.get(key) ?? [];
    list.push(client - (serverFirstMs[id] ?? 0));
    byStep.set(key, list);
  }
  for (const [key, list] of byStep) {
    const ms = (q: number) => quantile(list, q).toFixed(0);
    process.stderr.write(
      `[detail] ${key}: added TTFT p50 ${ms(0.5)} p99 ${ms(0.99)} max ${ms(1)} ms\n`,
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
