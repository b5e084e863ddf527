import { fork } from 'node:child_process';
import {
  type CanonicalRequest,
  createMessage,
  type Message,
  newRequestId,
  newSessionId,
  sealMessage,
  ToolIdMap,
} from '@yourtool/core';
import {
  check,
  cpuAndWallMeasurements,
  interleave,
  peakRss,
  type RunOptions,
  type ScenarioResult,
} from '../lib/harness.js';
import { buildSession } from '../lib/session.js';
import type { SendContender, SendReply } from './contender.js';
import { SEND_CONTENDERS } from './contenders/index.js';
import type { SendServerCommand, SendServerReply } from './server.js';

/** The history sizes measured: `send/<provider>/<N>`. */
export const SEND_SIZES = [1_000, 5_000] as const;
/** The adapters measured against their raw SDK (`contenders/`). */
export const SEND_PROVIDERS: readonly string[] = SEND_CONTENDERS.map((c) => c.provider);

/** Starts the one-word server process; returns its URL and the last body it received. */
async function startServer(cannedReplies: readonly SendReply[]) {
  const child = fork(new URL('./server.ts', import.meta.url), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, SEND_BENCH_REPLIES: JSON.stringify(cannedReplies) },
  });
  const replies: Array<(reply: SendServerReply) => void> = [];
  child.on('message', (reply: SendServerReply) => replies.shift()?.(reply));
  const next = () => new Promise<SendServerReply>((resolve) => replies.push(resolve));
  const ready = await next();
  if (!('ready' in ready)) throw new Error('the send server did not start');
  return {
    url: ready.ready,
    lastBody: async () => {
      const reply = next();
      child.send({ lastBody: true } satisfies SendServerCommand);
      const got = await reply;
      if (!('body' in got) || got.body === null) throw new Error('no body reached the server');
      return got.body;
    },
    close: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.send({ close: true } satisfies SendServerCommand);
      await exited;
    },
  };
}

/** A stored session's history as a session hands it to an adapter: sealed messages. */
function sealedHistory(size: number, model: string): Message[] {
  return buildSession({ sessionId: newSessionId(), messages: size, model }).map((m) =>
    sealMessage(m),
  );
}

/** The request of one call: the history plus a new user message, non-streaming. */
function newRequest(contender: SendContender, history: readonly Message[]): CanonicalRequest {
  return {
    request_id: newRequestId(),
    model: contender.model,
    messages: [
      ...history,
      createMessage({
        session_id: history[0]?.session_id ?? 'sess',
        role: 'user',
        content: [{ type: 'text', text: 'Reply with one word.' }],
      }),
    ],
    max_output_tokens: 1024,
    tools: [],
    stop_sequences: [],
    stream: false,
  };
}

/**
 * `send/<provider>/<N>`: one non-streaming call of the adapter on a history of N sealed
 * messages (tool uses, tool results, images; the adapter has sent it before, as in a running
 * session) plus a new user message, against the raw SDK sending the very body our adapter sent.
 */
export async function sendScenario(
  provider: string,
  size: number,
  options: RunOptions,
): Promise<ScenarioResult> {
  const contender = SEND_CONTENDERS.find((c) => c.provider === provider);
  if (contender === undefined) throw new Error(`no send contender named ${provider}`);
  const server = await startServer([contender.reply]);
  try {
    const history = sealedHistory(size, contender.model);
    // the session's tool id map, kept across its calls (what a session passes)
    const toolIdMap = new ToolIdMap();
    const callers = contender.open(server.url);
    const request = (): CanonicalRequest => newRequest(contender, history);
    // the adapter's first call on this history, untimed (as a session's earlier turn)
    await callers.ours(request(), toolIdMap);
    const bodyEntries = callers.entries(await server.lastBody());
    check(bodyEntries >= size, `the body holds ${bodyEntries} history entries`);
    let oursText = '';
    let baselineText = '';
    let baselineCall: () => Promise<string> = async () => '';
    const timings = await interleave(
      options,
      {
        ours: async () => {
          oursText = await callers.ours(request(), toolIdMap);
        },
        baseline: async () => {
          baselineText = await baselineCall();
        },
      },
      async (variant) => {
        // the baseline sends what our adapter sent last
        if (variant === 'baseline') baselineCall = callers.baseline(await server.lastBody());
      },
      { forceGc: false },
    );
    const checks: string[] = [];
    if (timings.ours.length > 0) check(oursText === 'Done.', `our call read "${oursText}"`);
    if (timings.baseline.length > 0) {
      check(baselineText === 'Done.', `the raw SDK read "${baselineText}"`);
      checks.push(`the raw SDK sent the body our adapter sent (${bodyEntries} history entries)`);
    }
    return {
      id: `send/${provider}/${size}`,
      group: 'turn',
      title: `${provider}: one call on a history of ${size.toLocaleString('en-US')} sealed messages the adapter sent before (one-word reply)`,
      baseline: 'the raw SDK sending the same request body',
      measurements: [...cpuAndWallMeasurements(timings, 'call')],
      checks,
      notes: [],
      maxRssBytes: peakRss(),
    };
  } finally {
    await server.close();
  }
}
