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
import { OpenAIAdapter } from '@yourtool/openai';
import OpenAI from 'openai';
import {
  check,
  cpuAndWallMeasurements,
  interleave,
  peakRss,
  type RunOptions,
  type ScenarioResult,
} from '../lib/harness.js';
import { buildSession } from '../lib/session.js';
import type { SendServerCommand, SendServerReply } from './server.js';

/** The history sizes measured: `send/<provider>/<N>`. */
export const SEND_SIZES = [1_000, 5_000] as const;
/** The adapters measured against their raw SDK. */
export const SEND_PROVIDERS = ['openai-chat'] as const;
/** One of {@link SEND_PROVIDERS}. */
export type SendProvider = (typeof SEND_PROVIDERS)[number];

const MODEL = 'openai:gpt-5';

/** Starts the one-word server process; returns its URL and the last body it received. */
async function startServer() {
  const child = fork(new URL('./server.ts', import.meta.url), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
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
function sealedHistory(size: number): Message[] {
  return buildSession({ sessionId: newSessionId(), messages: size, model: MODEL }).map((m) =>
    sealMessage(m),
  );
}

/**
 * `send/<provider>/<N>`: one non-streaming call of the adapter on a history of N sealed
 * messages (tool uses, tool results, images; the adapter has sent it before, as in a running
 * session) plus a new user message, against the raw SDK sending the very body our adapter sent.
 */
export async function sendScenario(
  provider: SendProvider,
  size: number,
  options: RunOptions,
): Promise<ScenarioResult> {
  const server = await startServer();
  try {
    const history = sealedHistory(size);
    // the session's tool id map, kept across its calls (what a session passes)
    const toolIdMap = new ToolIdMap();
    const adapter = new OpenAIAdapter({ api_key: 'bench-key', base_url: `${server.url}/v1` });
    const client = new OpenAI({ apiKey: 'bench-key', baseURL: `${server.url}/v1`, maxRetries: 0 });
    const request = (): CanonicalRequest => ({
      request_id: newRequestId(),
      model: MODEL,
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
    });
    // the adapter's first call on this history, untimed (as a session's earlier turn)
    await adapter.complete(request(), { toolIdMap });
    let body = JSON.parse(await server.lastBody()) as OpenAI.ChatCompletionCreateParamsNonStreaming;
    const bodyMessages = body.messages.length;
    check(bodyMessages >= size, `the body holds ${bodyMessages} messages`);
    let oursText = '';
    let baselineText = '';
    const timings = await interleave(
      options,
      {
        ours: async () => {
          const reply = await adapter.complete(request(), { toolIdMap });
          oursText = reply.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
        },
        baseline: async () => {
          const reply = await client.chat.completions.create(body);
          baselineText = reply.choices[0]?.message.content ?? '';
        },
      },
      async (variant) => {
        // the baseline sends what our adapter sent last
        if (variant === 'baseline') body = JSON.parse(await server.lastBody());
      },
      { forceGc: false },
    );
    const checks: string[] = [];
    if (timings.ours.length > 0) check(oursText === 'Done.', `our call read "${oursText}"`);
    if (timings.baseline.length > 0) {
      check(baselineText === 'Done.', `the raw SDK read "${baselineText}"`);
      checks.push(`the raw SDK sent the body our adapter sent (${bodyMessages} messages)`);
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
