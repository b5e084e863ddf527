import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Anthropic from '@anthropic-ai/sdk';
import { createMessage, type Message } from '@yourtool/core';
import { defaultPriceTable } from '@yourtool/pricing';
import { SessionManager } from '@yourtool/session';
import { openStore } from '@yourtool/store';
import { anthropicBenchRouter, BENCH_MODEL, rawBenchClient } from '../lib/anthropic-router.js';
import {
  check,
  cpuAndWallMeasurements,
  interleave,
  type PairedTimings,
  peakRss,
  type RunOptions,
  type ScenarioResult,
  type Variant,
} from '../lib/harness.js';
import { ownCpu, ownCpuNote } from '../lib/own-cpu.js';
import { prng, words } from '../lib/session.js';
import { median } from '../lib/stats.js';
import type { TurnServerCommand, TurnServerReply } from './server.js';

/** The session sizes measured: `turn/<N>`. */
export const TURN_SIZES = [100, 1_000, 5_000] as const;

/**
 * Pairs of the many-pairs figure per session size (issue 51: the layer's own CPU of a turn), and
 * how many turns each session takes before the next one is used, so a session grows by at most
 * twice that many messages and `turn/100` stays a turn on about 100 messages.
 */
export const MANY_PAIRS: Record<(typeof TURN_SIZES)[number], number> = {
  100: 240,
  1000: 100,
  5000: 30,
};
const TURNS_PER_SESSION = 10;

export const MODEL = BENCH_MODEL;
export const PROMPT = 'Reply with one word.';

/** Starts the one-word server process; returns its URL and its IPC commands. */
export async function startServer() {
  const child = fork(new URL('./server.ts', import.meta.url), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const replies: Array<(reply: TurnServerReply) => void> = [];
  child.on('message', (reply: TurnServerReply) => replies.shift()?.(reply));
  const ask = (command: TurnServerCommand) => {
    const reply = new Promise<TurnServerReply>((resolve) => replies.push(resolve));
    child.send(command);
    return reply;
  };
  const ready = await new Promise<TurnServerReply>((resolve) => replies.push(resolve));
  if (!('ready' in ready)) throw new Error('the turn server did not start');
  return {
    url: ready.ready,
    enqueue: () => ask({ enqueue: true }),
    lastBody: async () => {
      const reply = await ask({ lastBody: true });
      if (!('body' in reply)) throw new Error('unexpected reply from the turn server');
      return reply;
    },
    close: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.send({ close: true } satisfies TurnServerCommand);
      await exited;
    },
  };
}

/** `count` text messages of about 400 characters, user and assistant alternating. */
export function textHistory(sessionId: string, count: number): Message[] {
  const random = prng(7);
  const out: Message[] = [];
  const start = Date.now() - count * 1000;
  for (let i = 0; i < count; i++) {
    let text = '';
    while (text.length < 400) text += `${words(random, 8)}. `;
    const assistant = i % 2 === 1;
    out.push(
      createMessage({
        session_id: sessionId,
        role: assistant ? 'assistant' : 'user',
        content: [{ type: 'text', text: text.slice(0, 400) }],
        created_at: new Date(start + i * 1000).toISOString().replace('Z', '000Z'),
        metadata: assistant
          ? {
              status: 'complete',
              model: MODEL,
              provider: 'anthropic',
              routing: {
                mode: 'default',
                chosen_model: MODEL,
                reason: 'global default',
                rule_name: null,
                confidence: null,
                alternatives_considered: [],
              },
              usage: {
                input_tokens: 1000 + i,
                output_tokens: 100,
                cached_input_tokens: 0,
                cache_creation_input_tokens: 0,
                cost_usd: '0.0045',
                pricing_version: 'bench',
                latency_ms: 800,
              },
            }
          : { status: 'complete' },
      }),
    );
  }
  return out;
}

/**
 * The layer's own CPU of a turn, from one run's repetitions: median ours − median baseline, in
 * ms per turn (the figure issue 30 asks to bring under 2 ms at 100 messages) and in µs per
 * stored message.
 */
export function layerShareNotes(ours: number[], baseline: number[], size: number): string[] {
  const own = median(ours) - median(baseline);
  return [
    `the layer's own CPU per turn: ${own.toFixed(2)} ms (median ours ${median(ours).toFixed(2)} ms − median baseline ${median(baseline).toFixed(2)} ms, ${Math.min(ours.length, baseline.length)} pairs)`,
    `the layer's own share per stored message: ${((own * 1000) / size).toFixed(2)} µs CPU (the same difference ÷ ${size.toLocaleString('en-US')})`,
  ];
}

/**
 * `turn/<N>`: one `SessionManager.sendAndWait` turn on a stored SQLite session of N text
 * messages (a manager that has already run a turn of this session, as in a chat), against the
 * raw Anthropic SDK streaming the very same request body our adapter sent for that turn.
 */
export async function turnScenario(size: number, options: RunOptions): Promise<ScenarioResult> {
  const server = await startServer();
  const dir = mkdtempSync(join(tmpdir(), 'yourtool-turn-'));
  try {
    const store = await openStore(`sqlite:${join(dir, 'sessions.db')}`);
    const session = await store.createSession({ workspace_path: dir });
    await store.appendMessages(textHistory(session.id, size));
    const router = anthropicBenchRouter(server.url);
    const manager = new SessionManager({ store, router, pricing: defaultPriceTable() });
    const client = rawBenchClient(server.url);

    // the manager's first turn of the session (loads it, prepares the router), untimed
    await server.enqueue();
    await manager.sendAndWait(session.id, PROMPT);
    let current = session.id;
    const turnsOf = new Map<string, number>([[session.id, 1]]);

    let baselineBody: Anthropic.MessageCreateParamsStreaming | null = null;
    let oursText = '';
    let baselineText = '';
    let oursTurns = 0;
    let baselineTurns = 0;
    let bodyMessages = 0;
    const sides = {
      ours: async () => {
        const result = await manager.sendAndWait(current, PROMPT);
        oursText = result.messages
          .filter((m) => m.role === 'assistant')
          .flatMap((m) => m.content)
          .map((b) => (b.type === 'text' ? b.text : ''))
          .join('');
        oursTurns++;
        turnsOf.set(current, (turnsOf.get(current) ?? 0) + 1);
      },
      baseline: async () => {
        if (!baselineBody) throw new Error('no request body captured yet');
        const stream = await client.messages.create(baselineBody);
        let text = '';
        for await (const event of stream) {
          if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') {
            text += event.delta.text;
          }
        }
        baselineText = text;
        baselineTurns++;
      },
    };
    const prepare = async (variant: 'ours' | 'baseline') => {
      const last = await server.lastBody();
      if (last.body !== null) {
        baselineBody = JSON.parse(last.body) as Anthropic.MessageCreateParamsStreaming;
        bodyMessages = baselineBody.messages.length;
      }
      if (variant === 'baseline') check(baselineBody, 'a body to replay');
      await server.enqueue();
    };
    // the steady state of a chat server, then each turn after a forced full GC (see interleave)
    const timings = await interleave(options, sides, prepare, { forceGc: false });
    const many =
      options.only === 'both'
        ? await manyPairs(size as (typeof TURN_SIZES)[number], {
            newSession: async () => {
              const next = await store.createSession({ workspace_path: dir });
              await store.appendMessages(textHistory(next.id, size));
              await server.enqueue();
              await manager.sendAndWait(next.id, PROMPT);
              turnsOf.set(next.id, 1);
              return next.id;
            },
            use: (id) => {
              current = id;
            },
            sides,
            prepare,
          })
        : null;
    current = session.id;
    const afterGc = await interleave({ ...options, warmup: 0 }, sides, prepare, { forceGc: true });
    const history = await store.loadMessages(session.id);
    await store.close();

    const checks: string[] = [];
    if (oursTurns > 0) {
      check(oursText === 'Done.', `our turn answered "${oursText}"`);
      check(
        history.messages.length === size + 2 * (turnsOf.get(session.id) ?? 0),
        `the session holds ${history.messages.length} messages`,
      );
      checks.push(
        `each of our turns stored its user message and the one-word reply (${history.messages.length} messages at the end)`,
      );
    }
    if (baselineTurns > 0) {
      check(baselineText === 'Done.', `the raw SDK read "${baselineText}"`);
      check(bodyMessages >= size, `the replayed body holds ${bodyMessages} messages`);
      checks.push(`the raw SDK sent the body our adapter sent (${bodyMessages} messages)`);
    }
    const notes =
      timings.ours.length > 0 && timings.baseline.length > 0
        ? [
            ...(many
              ? [
                  ownCpuNote(
                    ownCpu(
                      many.ours.map((t) => t.cpuMs),
                      many.baseline.map((t) => t.cpuMs),
                    ),
                    `**the layer's own CPU per turn, many pairs**`,
                  ),
                ]
              : []),
            ...layerShareNotes(
              timings.ours.map((t) => t.cpuMs),
              timings.baseline.map((t) => t.cpuMs),
              size,
            ),
            ...layerShareNotes(
              afterGc.ours.map((t) => t.cpuMs),
              afterGc.baseline.map((t) => t.cpuMs),
              size,
            ).map((note) => `after a forced full GC, ${note}`),
          ]
        : [];
    return {
      id: `turn/${size}`,
      group: 'turn',
      title: `one session turn on a stored SQLite session of ${size.toLocaleString('en')} text messages (one-word reply)`,
      baseline: 'the raw Anthropic SDK streaming the same request body',
      measurements: [
        ...cpuAndWallMeasurements(timings, 'turn'),
        ...(many
          ? [
              {
                metric: `CPU ms per turn, ${many.ours.length} in-process pairs over ${many.sessions} sessions`,
                higherIsBetter: false,
                ours: many.ours.map((t) => t.cpuMs),
                baseline: many.baseline.map((t) => t.cpuMs),
              },
            ]
          : []),
        {
          metric: 'CPU ms per turn, each run after a forced full GC',
          higherIsBetter: false,
          ours: afterGc.ours.map((t) => t.cpuMs),
          baseline: afterGc.baseline.map((t) => t.cpuMs),
        },
      ],
      checks,
      notes,
      maxRssBytes: peakRss(),
    };
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What {@link manyPairs} needs from the scenario. */
interface ManyPairsSetup {
  /** Stores a new session of the scenario's size and runs its first (untimed) turn. */
  newSession: () => Promise<string>;
  /** Points our side at that session. */
  use: (sessionId: string) => void;
  sides: Record<Variant, () => Promise<void>>;
  prepare: (variant: Variant) => Promise<void>;
}

/**
 * The many-pairs method of issue 51: {@link MANY_PAIRS} pairs in this process, ours and the raw
 * SDK alternating, no forced GC, our side moving to a fresh session of the same size every
 * {@link TURNS_PER_SESSION} turns (the sessions are stored and warmed up front, untimed).
 */
async function manyPairs(
  size: (typeof TURN_SIZES)[number],
  setup: ManyPairsSetup,
): Promise<PairedTimings & { sessions: number }> {
  const pairs = MANY_PAIRS[size];
  const ids: string[] = [];
  for (let i = 0; i < Math.ceil(pairs / TURNS_PER_SESSION); i++) ids.push(await setup.newSession());
  let pair = 0;
  const prepare = async (variant: Variant) => {
    if (variant === 'ours') setup.use(ids[Math.floor(pair++ / TURNS_PER_SESSION)] as string);
    await setup.prepare(variant);
  };
  const options: RunOptions = { only: 'both', reps: pairs, warmup: 0 };
  const timings = await interleave(options, setup.sides, prepare, { forceGc: false });
  return { ...timings, sessions: ids.length };
}
