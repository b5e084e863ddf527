import { fork } from 'node:child_process';
import { MemorySessionStore } from '@yourtool/core/memory-store';
import { defaultPriceTable } from '@yourtool/pricing';
import { SessionManager } from '@yourtool/session';
import { anthropicBenchRouter } from '../lib/anthropic-router.js';
import {
  check,
  interleave,
  peakRss,
  type RunOptions,
  type ScenarioResult,
} from '../lib/harness.js';
import { DELTAS, RECORDS, RECORDS_SCHEMA, recordsObject } from './document.js';
import type { ObjectServerCommand, ObjectServerReply } from './server.js';

/** Turns per timed repetition: a repetition's time is less at the mercy of one GC. */
const TURNS = 4;

/** Starts the server process; returns its URL and a way to queue the next stream. */
async function startServer() {
  const child = fork(new URL('./server.ts', import.meta.url), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const replies: Array<(reply: ObjectServerReply) => void> = [];
  child.on('message', (reply: ObjectServerReply) => replies.shift()?.(reply));
  const ask = (command: ObjectServerCommand) => {
    const reply = new Promise<ObjectServerReply>((resolve) => replies.push(resolve));
    child.send(command);
    return reply;
  };
  const ready = await new Promise<ObjectServerReply>((resolve) => replies.push(resolve));
  if (!('ready' in ready)) throw new Error('the object server did not start');
  return {
    url: ready.ready,
    enqueue: (count: number) => ask({ enqueue: count }),
    close: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.send({ close: true } satisfies ObjectServerCommand);
      await exited;
    },
  };
}

function managerOn(url: string): SessionManager {
  const router = anthropicBenchRouter(url);
  return new SessionManager({
    store: new MemorySessionStore(),
    router,
    pricing: defaultPriceTable(),
  });
}

/**
 * `streaming/partial-object`: one session turn whose reply streams a JSON object of RECORDS
 * records in DELTAS text deltas, asked for as an object (`output`: parsed as it streams, an
 * `object.partial` event per delta that grew it, validated at the end), against the same turn
 * asking for nothing, its reply the very same bytes as plain text. Issue 45 wants at most 1.2×.
 */
export async function partialObjectScenario(options: RunOptions): Promise<ScenarioResult> {
  const server = await startServer();
  try {
    const manager = managerOn(server.url);
    const expected = recordsObject();
    let partials = 0;
    let lastPartial: unknown;
    let object: unknown;
    let text = '';
    const turns = async (asObject: boolean) => {
      for (let i = 0; i < TURNS; i++) await turn(asObject);
    };
    const turn = async (asObject: boolean) => {
      const session = await manager.createSession({ workspace_path: '/bench' });
      const events = manager.send(
        session.id,
        'List the records.',
        asObject ? { output: RECORDS_SCHEMA } : {},
      );
      for await (const event of events) {
        if (event.type === 'object.partial') {
          partials++;
          lastPartial = event.value;
        } else if (event.type === 'session.turn_complete') {
          if (asObject) object = event.result.object;
          else text = event.result.text;
        }
      }
    };
    const timings = await interleave(
      options,
      { ours: () => turns(true), baseline: () => turns(false) },
      async () => {
        await server.enqueue(TURNS);
      },
      // the steady state of a server streaming turn after turn (a forced GC makes V8 forget)
      { forceGc: false },
    );
    const checks: string[] = [];
    if (timings.ours.length > 0) {
      check(JSON.stringify(object) === JSON.stringify(expected), 'the turn gave the object');
      check(
        JSON.stringify(lastPartial) === JSON.stringify(expected),
        'the last partial is the object',
      );
      checks.push(
        `each object turn gave the ${RECORDS}-record object; the last of its object.partial events equals it (${partials} events in all)`,
      );
    }
    if (timings.baseline.length > 0) {
      check(text === JSON.stringify(expected), 'the text turn read the same bytes');
      checks.push(
        `each text turn read the same ${text.length.toLocaleString('en-US')} characters as text`,
      );
    }
    return {
      id: 'streaming/partial-object',
      group: 'streaming',
      title: `a session turn streaming a ${RECORDS}-record JSON object in ${DELTAS.toLocaleString('en-US')} deltas, as partial objects`,
      baseline: 'the same turn and bytes, streamed as plain text (no output schema)',
      measurements: [
        {
          metric: 'CPU ms per turn',
          higherIsBetter: false,
          ours: timings.ours.map((t) => t.cpuMs / TURNS),
          baseline: timings.baseline.map((t) => t.cpuMs / TURNS),
        },
        {
          metric: 'wall ms per turn',
          higherIsBetter: false,
          ours: timings.ours.map((t) => t.wallMs / TURNS),
          baseline: timings.baseline.map((t) => t.wallMs / TURNS),
        },
      ],
      checks,
      notes: [
        `each repetition runs ${TURNS} turns, each on a new session; figures are per turn`,
        'issue 45 asks for partial-object streaming at most 1.2× plain text streaming',
      ],
      maxRssBytes: peakRss(),
    };
  } finally {
    await server.close();
  }
}
