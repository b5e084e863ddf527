/**
 * With `YOURTOOL_BENCH_DETAIL` set: the event loop's long stalls in one side's run, by phase.
 * A 5 ms interval notes each wakeup more than 25 ms late, when in its phase it came, and how
 * much of it GC took (the run's `gc` entries overlapping it). The event-loop delay histogram
 * says how long the worst turns of the loop were; this says when they were (a phase's opening,
 * after every tool finished) and whether a collection was in them (decision 0207).
 */
import { type PerformanceEntry, performance } from 'node:perf_hooks';

const INTERVAL_MS = 5;
const LATE_MS = 25;

interface Stall {
  phase: number;
  /** When the late wakeup was due, performance.now() ms. */
  dueAt: number;
  lateMs: number;
}

/** Notes the loop's stalls while a side runs; see the module comment. */
export class StallWatch {
  readonly #stalls: Stall[] = [];
  readonly #gcs: Array<{ start: number; end: number }> = [];
  /** Each phase's start, performance.now() ms, by phase number. */
  readonly #phaseStarts = new Map<number, number>();
  #phase = 0;
  #last = 0;
  #timer: NodeJS.Timeout | null = null;
  /** When every session's tool had finished, if the run has a tool turn. */
  #toolsFinishedAt: number | null = null;

  /** Starts watching (a previous run's notes are dropped). */
  start(): void {
    this.stop();
    this.#stalls.length = 0;
    this.#gcs.length = 0;
    this.#phaseStarts.clear();
    this.#toolsFinishedAt = null;
    this.#last = performance.now();
    this.#timer = setInterval(() => this.#tick(), INTERVAL_MS);
    this.#timer.unref();
  }

  /** Phase `turn` starts now. */
  phase(turn: number): void {
    this.#phase = turn;
    this.#phaseStarts.set(turn, performance.now());
  }

  /** Every session's tool finished at `at` (performance.now() ms). */
  toolsFinished(at: number): void {
    this.#toolsFinishedAt = at;
  }

  /** A `gc` entry of the run. */
  gc(entry: PerformanceEntry): void {
    this.#gcs.push({ start: entry.startTime, end: entry.startTime + entry.duration });
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }

  /** One line per phase: its stalls, as late ms at ms from the phase's start, GC ms in them. */
  summary(label: string): string {
    const lines: string[] = [];
    for (const [turn, start] of this.#phaseStarts) {
      const stalls = this.#stalls.filter((s) => s.phase === turn);
      const listed = stalls.map((s) => {
        const gc = this.#gcWithin(s.dueAt, s.dueAt + s.lateMs);
        const gcText = gc >= 1 ? `, GC ${gc.toFixed(0)}` : '';
        return `${s.lateMs.toFixed(0)} at ${signed(s.dueAt - start)}${gcText}`;
      });
      const tools = this.#toolsFinishedAt;
      const toolsText =
        tools !== null && tools >= start && this.#phaseOf(tools) === turn
          ? ` (tools finished at ${signed(tools - start)})`
          : '';
      const body = listed.length > 0 ? listed.join('; ') : 'none';
      // a stall due just before the phase began (the last one's end) shows a negative offset
      lines.push(
        `[detail] ${label} turn ${turn}${toolsText}: loop stalls over ${LATE_MS} ms (ms): ${body}`,
      );
    }
    return lines.join('\n');
  }

  #tick(): void {
    const now = performance.now();
    const due = this.#last + INTERVAL_MS;
    const late = now - due;
    if (late > LATE_MS) this.#stalls.push({ phase: this.#phase, dueAt: due, lateMs: late });
    this.#last = now;
  }

  /** The phase that was running at `at`. */
  #phaseOf(at: number): number {
    let found = 0;
    for (const [turn, start] of this.#phaseStarts) if (start <= at) found = turn;
    return found;
  }

  /** GC ms overlapping [from, to]. */
  #gcWithin(from: number, to: number): number {
    let ms = 0;
    for (const { start, end } of this.#gcs)
      ms += Math.max(0, Math.min(end, to) - Math.max(start, from));
    return ms;
  }
}

/** `ms` from a phase's start, signed: `+12`, `-3`. */
function signed(ms: number): string {
  const rounded = Math.round(ms);
  return rounded >= 0 ? `+${rounded}` : `${rounded}`;
}
