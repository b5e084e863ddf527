/**
 * How many SQL statements our side's turns issue on PostgreSQL, measured one turn at a time
 * (at concurrency the statements of different turns interleave): before the model request
 * leaves, and in all.
 */
import { Barrier, RunProbe } from './probe.js';
import { promptOf, TOOL_TURN } from './script.js';
import type { ConcurrencySetup } from './setup.js';
import { oursTurn } from './sides.js';
import { onRequestLeaving, type StatementCounter } from './sql-count.js';

/** Statements per turn, one value per probed session. */
export interface StatementFigures {
  firstBefore: number[];
  firstTotal: number[];
  steadyBefore: number[];
  steadyTotal: number[];
  toolTotal: number[];
}

/** Sessions the probe runs, one turn at a time. */
const PROBED_SESSIONS = 5;

/**
 * Runs {@link PROBED_SESSIONS} sessions' three turns one after another, counting the
 * statements from the send to the first request leaving, and to the turn's end.
 */
export async function probeStatements(
  setup: ConcurrencySetup,
  counter: StatementCounter,
): Promise<StatementFigures> {
  const out: StatementFigures = {
    firstBefore: [],
    firstTotal: [],
    steadyBefore: [],
    steadyTotal: [],
    toolTotal: [],
  };
  let atRequest: number | null = null;
  const stop = onRequestLeaving(() => {
    atRequest ??= counter.count;
  });
  try {
    const ids: string[] = [];
    for (let s = 0; s < PROBED_SESSIONS; s++) {
      ids.push((await setup.manager.createSession({ workspace_path: setup.dir })).id);
    }
    const probe = new RunProbe('probe');
    const turn = oursTurn(setup.manager, ids, {
      base: { side: 'probe', rep: 0 },
      probe,
      holder: setup.holder,
    });
    for (let s = 0; s < PROBED_SESSIONS; s++) {
      for (let t = 1; t <= TOOL_TURN; t++) {
        setup.holder.barrier = new Barrier(1);
        atRequest = null;
        const before = counter.count;
        const ok = await turn(s, t);
        if (!ok)
          throw new Error(
            `sanity check failed: probe turn "${promptOf({ side: 'probe', rep: 0, session: s, turn: t })}" failed`,
          );
        const total = counter.count - before;
        const leaving = (atRequest ?? counter.count) - before;
        if (t === 1) {
          out.firstBefore.push(leaving);
          out.firstTotal.push(total);
        } else if (t === 2) {
          out.steadyBefore.push(leaving);
          out.steadyTotal.push(total);
        } else out.toolTotal.push(total);
      }
    }
    await setup.server.stats();
  } finally {
    stop();
  }
  return out;
}
