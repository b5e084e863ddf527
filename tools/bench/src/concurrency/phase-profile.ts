/**
 * With `YOURTOOL_BENCH_PHASE_PROFILE=<dir>`: a CPU profile of each phase's opening, from the
 * phase's turns starting to the last session's first text delta, written to
 * `<dir>/<side>-rep<R>-turn<T>.cpuprofile` (read it with `src/profile-file.ts`). That window is
 * what time to first token pays for: every turn's work before its request, and the events of
 * turns already answering. The in-process inspector samples the one thread the turns run on.
 * With `YOURTOOL_BENCH_PHASE_HEAP=1` as well, a sampling heap profile of the same window that
 * keeps what the GC collected (`.heapprofile`): where the window's allocations come from. With
 * `YOURTOOL_BENCH_PHASE_HEAP=live`, only what is still alive when the window ends: what the
 * window's scavenges had to copy, by where it was allocated.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';

/** Profiles one phase's opening; `start` at the phase's start, `firstDelta` on every first delta. */
export interface PhaseProfiler {
  start(label: string, expectedFirstDeltas: number): Promise<void>;
  firstDelta(): void;
  /** Resolves once the current phase's profile is written (or at once when none runs). */
  settled(): Promise<void>;
}

const SAMPLING_INTERVAL_US = 200;
const HEAP_SAMPLING_BYTES = 4096;

let shared: PhaseProfiler | null | undefined;

/** The process's profiler when `YOURTOOL_BENCH_PHASE_PROFILE` names a directory, else `null`. */
export function phaseProfiler(): PhaseProfiler | null {
  shared ??= create(process.env.YOURTOOL_BENCH_PHASE_PROFILE);
  return shared;
}

function create(dir: string | undefined): PhaseProfiler | null {
  if (!dir) return null;
  mkdirSync(dir, { recursive: true });
  const session = new Session();
  session.connect();
  let remaining = 0;
  let label = '';
  let writing: Promise<void> = Promise.resolve();
  const heapMode = process.env.YOURTOOL_BENCH_PHASE_HEAP;
  const heap = heapMode === '1' || heapMode === 'live';
  const collected = heapMode !== 'live';
  const stop = async (name: string) => {
    const { profile } = await session.post('Profiler.stop');
    if (heap) {
      const sampled = await session.post('HeapProfiler.getSamplingProfile');
      await session.post('HeapProfiler.stopSampling');
      writeFileSync(join(dir, `${name}.heapprofile`), JSON.stringify(sampled.profile));
    }
    writeFileSync(join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
  };
  return {
    async start(name, expected) {
      await writing;
      label = name;
      remaining = expected;
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: SAMPLING_INTERVAL_US });
      await session.post('Profiler.start');
      if (heap) {
        await session.post('HeapProfiler.enable');
        await session.post('HeapProfiler.startSampling', {
          samplingInterval: HEAP_SAMPLING_BYTES,
          includeObjectsCollectedByMajorGC: collected,
          includeObjectsCollectedByMinorGC: collected,
        });
      }
    },
    firstDelta() {
      if (remaining <= 0) return;
      remaining--;
      if (remaining === 0) writing = stop(label);
    },
    settled: () => writing,
  };
}
