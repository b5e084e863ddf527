/**
 * `turn/stream`: what a session turn adds to each streamed event. One stored SQLite session,
 * a new one per repetition (one user message), a reply of {@link STREAM_DELTAS} text deltas
 * from a loopback server in its own process, against the raw Anthropic SDK iterating the same
 * stream. The per-turn work (session, routing, writes) is spread over the deltas; what is left
 * is the cost of carrying an event from the adapter to the caller.
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultPriceTable } from '@yourtool/pricing';
import { SessionManager } from '@yourtool/session';
import { openStore } from '@yourtool/store';
import { anthropicBenchRouter, rawBenchClient } from '../lib/anthropic-router.js';
import {
  check,
  interleave,
  peakRss,
  type RunOptions,
  type ScenarioResult,
} from '../lib/harness.js';
import { STREAM_DELTAS, STREAM_TEXT } from './stream-script.js';

const WIRE_MODEL = 'claude-sonnet-4-6';

/** Starts the server process; resolves to its URL and its end. */
async function startStreamServer(): Promise<{ url: string; close: () => void }> {
  const child = fork(new URL('./stream-server.ts', import.meta.url), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message) => resolve(message as number));
    child.once('exit', (code) => reject(new Error(`the stream server exited (${code})`)));
  });
  return { url: `http://127.0.0.1:${port}`, close: () => child.disconnect() };
}

/** Runs `turn/stream`; see the module comment. */
export async function streamTurnScenario(options: RunOptions): Promise<ScenarioResult> {
  const server = await startStreamServer();
  const dir = mkdtempSync(join(tmpdir(), 'yourtool-turn-stream-'));
  try {
    const store = await openStore(`sqlite:${join(dir, 'sessions.db')}`);
    const router = anthropicBenchRouter(server.url);
    const manager = new SessionManager({ store, router, pricing: defaultPriceTable() });
    const client = rawBenchClient(server.url);
    let oursText = '';
    let baselineText = '';
    let storedText = '';
    const sides = {
      ours: async () => {
        const session = await manager.createSession({ workspace_path: dir });
        oursText = '';
        for await (const event of manager.send(session.id, 'Say the words.')) {
          if (event.type === 'text.delta') oursText += event.text;
          else if (event.type === 'session.turn_complete') storedText = event.result.text;
        }
      },
      baseline: async () => {
        const stream = await client.messages.create({
          model: WIRE_MODEL,
          max_tokens: 4096,
          messages: [{ role: 'user', content: 'Say the words.' }],
          stream: true,
        });
        baselineText = '';
        for await (const event of stream) {
          if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') {
            baselineText += event.delta.text;
          }
        }
      },
    };
    // steady state: a process streaming reply after reply, not one re-optimized after each GC
    const timings = await interleave(options, sides, undefined, { forceGc: false });
    const checks: string[] = [];
    if (options.only !== 'baseline') {
      check(oursText === STREAM_TEXT, 'our turn streamed a different text than the server sent');
      check(storedText === STREAM_TEXT, "the turn's stored reply differs from what was streamed");
      checks.push(`${STREAM_DELTAS} text deltas per turn, streamed and stored intact`);
    }
    if (options.only !== 'ours') {
      check(
        baselineText === STREAM_TEXT,
        'the raw SDK streamed a different text than the server sent',
      );
    }
    const perEvent = (ms: number) => (ms * 1000) / STREAM_DELTAS;
    const result: ScenarioResult = {
      id: 'turn/stream',
      group: 'turn',
      title: `one session turn streaming a ${STREAM_DELTAS.toLocaleString('en-US')}-delta reply (a new SQLite session each time), from a loopback server process`,
      baseline:
        'the raw Anthropic SDK iterating the same stream (messages.create with stream: true)',
      measurements: [
        {
          metric: 'CPU µs per text event',
          higherIsBetter: false,
          ours: timings.ours.map((t) => perEvent(t.cpuMs)),
          baseline: timings.baseline.map((t) => perEvent(t.cpuMs)),
        },
        {
          metric: 'wall µs per text event',
          higherIsBetter: false,
          ours: timings.ours.map((t) => perEvent(t.wallMs)),
          baseline: timings.baseline.map((t) => perEvent(t.wallMs)),
        },
      ],
      checks,
      notes: [
        "the turn's own work (session, routing, two writes) is included, spread over the deltas",
      ],
      maxRssBytes: peakRss(),
    };
    await store.close();
    return result;
  } finally {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
