import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SessionStore } from '@yourtool/core';
import { createRuntime, type Runtime } from '@yourtool/runtime';
import { defineTool } from '@yourtool/session';
import type { ScriptedProvider } from '@yourtool/testing';
import * as ai7 from 'ai';
import * as ai6 from 'ai6';
import { onTestFinished } from 'vitest';
import {
  type ApprovalStore,
  ChatBridge,
  type ChatBridgeOptions,
  MemoryApprovalStore,
  readJsonBody,
  writeResponse,
} from '../src/index.js';

/** The two majors of `ai`, each with its own client transport and reader. */
export const MAJORS = [
  { protocol: 'ai7' as const, sdk: ai7 as unknown as Sdk },
  { protocol: 'ai6' as const, sdk: ai6 as unknown as Sdk },
];

/** What the tests use of an `ai` major (the same names in 6 and 7). */
export interface Sdk {
  DefaultChatTransport: typeof ai7.DefaultChatTransport;
  readUIMessageStream: typeof ai7.readUIMessageStream;
  validateUIMessages: typeof ai7.validateUIMessages;
}

export const MODELS = {
  'anthropic:claude-sonnet-4-6': { aliases: ['sonnet'] },
  'google:gemini-2.5-flash': { aliases: ['gemini'] },
};

/** Tools: `lookup` (read: runs at once) and `save_note` (write: asks approval). */
export function tools(saved: string[]) {
  return [
    defineTool({
      name: 'lookup',
      description: 'Looks a word up.',
      side_effects: 'read',
      input_schema: {
        type: 'object',
        properties: { word: { type: 'string' } },
        required: ['word'],
      },
      run: ({ word }) => `${word}: a greeting`,
    }),
    defineTool({
      name: 'save_note',
      description: 'Saves a note.',
      side_effects: 'write',
      input_schema: {
        type: 'object',
        properties: { text: { type: 'string' } },
        required: ['text'],
      },
      run: ({ text }) => {
        saved.push(text);
        return `saved "${text}"`;
      },
    }),
  ];
}

/** One server instance: a runtime, its bridge, an HTTP server on loopback. */
export interface Instance {
  runtime: Runtime;
  bridge: ChatBridge;
  url: string;
  saved: string[];
}

/** Options of {@link startInstance}. */
export interface InstanceOptions extends Partial<Omit<ChatBridgeOptions, 'sessions' | 'store'>> {
  provider: ScriptedProvider;
  store?: SessionStore | string;
  routing?: string;
  approvals?: ApprovalStore;
  turnLease?: { ttlMs: number; heartbeatMs: number };
}

/** Starts an instance serving `POST /chat?session=<id>`; closed when the test ends. */
export async function startInstance(options: InstanceOptions): Promise<Instance> {
  const saved: string[] = [];
  let bridge: ChatBridge | undefined;
  const runtime = await createRuntime({
    models: options.provider.modelsYaml({ models: MODELS }),
    ...(options.routing ? { routing: options.routing } : {}),
    ...(options.store ? { store: options.store } : {}),
    ...(options.turnLease ? { turnLease: options.turnLease } : {}),
    tools: tools(saved),
    confirm: (request) => (bridge as ChatBridge).confirm(request),
    logger: false,
    retry: { baseDelayMs: 1, maxDelayMs: 2 },
  });
  bridge = new ChatBridge({
    sessions: runtime.sessions,
    store: runtime.store,
    approvals: options.approvals ?? new MemoryApprovalStore(),
    ...(options.protocol ? { protocol: options.protocol } : {}),
    ...(options.approvalDeadlineMs ? { approvalDeadlineMs: options.approvalDeadlineMs } : {}),
    pollMs: options.pollMs ?? 20,
  });
  const chat = bridge;
  const server: Server = createServer((req, res) => {
    const session = new URL(req.url ?? '/', 'http://x').searchParams.get('session') ?? '';
    void readJsonBody(req)
      .then((body) => chat.respond(body, { sessionId: session }))
      .then((response) => writeResponse(res, response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  onTestFinished(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await runtime.close();
  });
  return { runtime, bridge, url: `http://127.0.0.1:${port}/chat`, saved };
}

/** What one request gave: the chunks the SDK's transport parsed, and the message its reader built. */
export interface Exchange {
  chunks: Array<{ type: string } & Record<string, unknown>>;
  message: ai7.UIMessage;
}

/**
 * Posts a `useChat` request through the major's own `DefaultChatTransport` (its fetch, its SSE
 * parser, its chunk schema) and reads the answer with its own `readUIMessageStream`.
 */
export async function post(
  sdk: Sdk,
  url: string,
  messages: ai7.UIMessage[],
  options: {
    /** The assistant message a continuation (an approval's answer) goes on with. */
    continuing?: ai7.UIMessage;
    /** Aborted (as a stop button does) at the first chunk of type `abortOn`. */
    abortSignal?: AbortController;
    abortOn?: string;
    onChunk?: (chunk: { type: string }) => void;
    /** Collects the reader's errors instead of failing on them. */
    onError?: (error: unknown) => void;
  } = {},
): Promise<Exchange> {
  const transport = new sdk.DefaultChatTransport({ api: url });
  const stream = await transport.sendMessages({
    trigger: 'submit-message',
    chatId: 'chat-1',
    messageId: undefined,
    messages,
    abortSignal: options.abortSignal?.signal,
  });
  const [forChunks, forReader] = stream.tee();
  const chunks: Exchange['chunks'] = [];
  const collecting = (async () => {
    for await (const chunk of forChunks) {
      chunks.push(chunk as Exchange['chunks'][number]);
      options.onChunk?.(chunk);
      if (chunk.type === options.abortOn) options.abortSignal?.abort();
    }
  })();
  let message: ai7.UIMessage | undefined;
  const reading = sdk.readUIMessageStream({
    stream: forReader,
    ...(options.continuing ? { message: structuredClone(options.continuing) } : {}),
    ...(options.onError ? { onError: options.onError } : { terminateOnError: true }),
  });
  try {
    for await (const m of reading) message = m;
  } finally {
    await collecting.catch(() => {});
  }
  if (!message) throw new Error('the reader built no message');
  return { chunks, message };
}

/** A user UI message as `useChat` makes it. */
export function userMessage(text: string, id = `u-${text.length}`): ai7.UIMessage {
  return { id, role: 'user', parts: [{ type: 'text', text }] };
}

/** The chunk types, in order. */
export function types(exchange: Exchange): string[] {
  return exchange.chunks.map((c) => c.type);
}
