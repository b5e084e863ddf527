import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { redactHeaders } from '@yourtool/core/adapter';
import {
  type FixedReply,
  type OllamaModelSpec,
  ollamaShow,
  ollamaTags,
  WIRE_RENDERERS,
} from '@yourtool/wire-formats';
import { type ModelsYamlOptions, modelsYaml, SCRIPTED_API_KEY } from './models-yaml.js';
import { type RecordedRequest, viewRequest } from './recorded-request.js';
import { StallRegistry, writeError, writeReply } from './respond.js';
import { type Route, routeRequest } from './routes.js';
import {
  isFixedReply,
  isReplyPart,
  message,
  type ReplyFunction,
  type ReplyPart,
  type ScriptedReply,
  toFixedReply,
} from './script.js';

/** Options of {@link startScriptedProvider}. */
export interface ScriptedProviderOptions {
  /**
   * Values to redact from recorded headers besides what core's `redactHeaders` finds itself
   * (credential header names and credential-shaped values), e.g. custom `extra_headers` values.
   */
  secrets?: readonly string[];
  /** What `/api/show` reports per Ollama model; unlisted models get the defaults. */
  ollamaModels?: Readonly<Record<string, OllamaModelSpec>>;
  /** A stalled response is destroyed after this long, in ms. Default 60 000. */
  stallLimitMs?: number;
  /** A reply function must settle within this, in ms, or the request gets a 500. Default 10 000. */
  replyTimeoutMs?: number;
}

/**
 * A loopback HTTP server speaking every adapter's wire format, answering each model request
 * with the next scripted reply in that request's format, and recording what each carried.
 */
export interface ScriptedProvider {
  /** `http://127.0.0.1:<port>`: the `base_url` of any adapter (OpenAI-style ones may add `/v1`). */
  readonly url: string;
  /** Every model request received since the last {@link clear}, in order. */
  readonly requests: readonly RecordedRequest[];
  /** Queues one reply made of these parts: `provider.reply(text('Hi'), usage({...}))`. */
  reply(...parts: ReplyPart[]): ScriptedProvider;
  /** Queues one whole reply: an error, a stall, a reset, a `message(...)`, or a reply function. */
  reply(reply: ScriptedReply): ScriptedProvider;
  /** Queues whole replies in order (e.g. `scriptFromSession(messages)`). */
  enqueue(...replies: readonly ScriptedReply[]): ScriptedProvider;
  /** Answers requests that find the queue empty (`null`: a 500 saying nothing was scripted). */
  whenUnscripted(handler: ReplyFunction | null): ScriptedProvider;
  /** Replies still queued. */
  pending(): number;
  /** Resolves with the requests once `count` have arrived; rejects after `timeoutMs` (5000). */
  waitForRequests(count: number, timeoutMs?: number): Promise<readonly RecordedRequest[]>;
  /** Adds a value to redact from recorded headers (already recorded ones included). */
  addSecret(secret: string): void;
  /** A models.yaml for `createRuntime` whose adapters all reach this provider. */
  modelsYaml(options: ModelsYamlOptions): string;
  /** Forgets queued replies and recorded requests, and ends stalled responses. */
  clear(): void;
  /** Stops the server, destroying every connection (stalled ones too). Idempotent. */
  close(): Promise<void>;
}

const SERVED_PATHS =
  '/v1/messages, /chat/completions, /responses, /models/{model}:generateContent and :streamGenerateContent, /model/{modelId}/converse and /converse-stream, /api/chat, /api/show, /api/tags';

function readBody(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (chunk: Buffer) => parts.push(chunk));
    req.on('error', reject);
    req.on('end', () => {
      const text = Buffer.concat(parts).toString('utf8');
      if (text === '') resolve(undefined);
      else {
        try {
          resolve(JSON.parse(text));
        } catch {
          resolve(text);
        }
      }
    });
  });
}

function flatHeaders(req: IncomingMessage, secrets: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined)
      out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return redactHeaders(out, secrets);
}

function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

class ScriptedProviderServer implements ScriptedProvider {
  readonly url: string;
  readonly requests: RecordedRequest[] = [];
  readonly #server: Server;
  readonly #queue: ScriptedReply[] = [];
  readonly #secrets: string[];
  readonly #options: ScriptedProviderOptions;
  readonly #stalls: StallRegistry;
  readonly #sockets = new Set<Socket>();
  readonly #waiters = new Set<() => void>();
  #unscripted: ReplyFunction | null = null;
  /** Replies served over the provider's lifetime: wire ids stay unique across `clear()`. */
  #served = 0;
  #closing: Promise<void> | null = null;

  constructor(server: Server, options: ScriptedProviderOptions) {
    this.#server = server;
    this.#options = options;
    this.#secrets = [SCRIPTED_API_KEY, ...(options.secrets ?? [])];
    this.#stalls = new StallRegistry(options.stallLimitMs ?? 60_000);
    const { port } = server.address() as AddressInfo;
    this.url = `http://127.0.0.1:${port}`;
    server.on('connection', (socket) => {
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
    });
    server.on('request', (req, res) => {
      this.#handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) {
          writeError(res, { status: 500, headers: {}, body: { error: String(error) } });
        } else res.destroy();
      });
    });
  }

  reply(...args: Array<ReplyPart | ScriptedReply>): ScriptedProvider {
    const [first] = args;
    if (args.length === 1 && (typeof first === 'function' || isFixedReply(first))) {
      this.#queue.push(first as ScriptedReply);
    } else if (args.every(isReplyPart)) {
      this.#queue.push(message(...args));
    } else {
      throw new TypeError(
        'provider.reply(): give either the parts of one message (text(), toolCall(), usage(), ...) or one whole reply (httpError(), stall(), reset(), message(), a function)',
      );
    }
    return this;
  }

  enqueue(...replies: readonly ScriptedReply[]): ScriptedProvider {
    for (const reply of replies) {
      if (typeof reply !== 'function' && !isFixedReply(reply)) {
        throw new TypeError('provider.enqueue(): every argument must be a whole reply');
      }
    }
    this.#queue.push(...replies);
    return this;
  }

  whenUnscripted(handler: ReplyFunction | null): ScriptedProvider {
    this.#unscripted = handler;
    return this;
  }

  pending(): number {
    return this.#queue.length;
  }

  waitForRequests(count: number, timeoutMs = 5000): Promise<readonly RecordedRequest[]> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (this.requests.length < count) return false;
        clearTimeout(timer);
        this.#waiters.delete(check);
        resolve([...this.requests]);
        return true;
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(check);
        reject(
          new Error(
            `expected ${count} request(s) within ${timeoutMs} ms, got ${this.requests.length}`,
          ),
        );
      }, timeoutMs);
      if (!check()) this.#waiters.add(check);
    });
  }

  addSecret(secret: string): void {
    this.#secrets.push(secret);
    for (const record of this.requests) record.headers = redactHeaders(record.headers, [secret]);
  }

  modelsYaml(options: ModelsYamlOptions): string {
    if (options.apiKey) this.addSecret(options.apiKey);
    return modelsYaml(this.url, options);
  }

  clear(): void {
    this.#queue.length = 0;
    this.requests.length = 0;
    this.#stalls.releaseAll();
  }

  close(): Promise<void> {
    this.#closing ??= new Promise<void>((resolve) => {
      this.#queue.length = 0;
      this.#stalls.releaseAll();
      this.#server.close(() => resolve());
      for (const socket of this.#sockets) socket.destroy();
      this.#server.closeAllConnections();
    });
    return this.#closing;
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    const route = routeRequest(method, path, body);
    if (this.#answerInfo(route, body, res)) return;
    const format = route.kind === 'model' ? route.format : null;
    const record: RecordedRequest = {
      index: this.requests.length,
      method,
      path,
      headers: flatHeaders(req, this.#secrets),
      body,
      format,
      stream: route.kind === 'model' && route.stream,
      ...viewRequest(format, body, path),
      reply: null,
      unscripted: false,
      aborted: false,
    };
    this.requests.push(record);
    res.on('close', () => {
      if (!res.writableFinished) record.aborted = true;
    });
    for (const waiter of [...this.#waiters]) waiter();
    if (route.kind !== 'model') {
      writeError(res, {
        status: 404,
        headers: {},
        body: {
          error: {
            type: 'not_found',
            message: `@yourtool/testing: no wire format is served at ${method} ${path}; the scripted provider answers ${SERVED_PATHS}`,
          },
        },
      });
      return;
    }
    const reply = await this.#nextReply(record);
    record.reply = reply;
    await writeReply(
      {
        req,
        res,
        renderer: WIRE_RENDERERS[route.format],
        stream: route.stream,
        stalls: this.#stalls,
        context: {
          model: record.model ?? 'scripted-model',
          seq: ++this.#served,
          body: body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : {},
        },
      },
      reply,
    );
  }

  /** Answers Ollama's metadata endpoints; true when the route was one. */
  #answerInfo(route: Route, body: unknown, res: ServerResponse): boolean {
    const json = (value: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(value));
    };
    const models = this.#options.ollamaModels ?? {};
    switch (route.kind) {
      case 'ollama-show': {
        const name = String((body as { model?: unknown } | undefined)?.model ?? '');
        json(ollamaShow(models[name] ?? models[name.replace(/:latest$/, '')]));
        return true;
      }
      case 'ollama-tags':
        json(ollamaTags(Object.keys(models)));
        return true;
      case 'ollama-version':
        json({ version: '0.12.0' });
        return true;
      default:
        return false;
    }
  }

  /** The reply for a request: the next queued one, settled if it is a function. */
  async #nextReply(record: RecordedRequest): Promise<FixedReply> {
    const next = this.#queue.shift() ?? this.#unscripted ?? undefined;
    if (next === undefined) {
      record.unscripted = true;
      return this.#failure(
        `@yourtool/testing: nothing was scripted for request #${record.index} (${record.method} ${record.path}${record.model ? `, model ${record.model}` : ''}); queue a reply with provider.reply(...) before the call`,
      );
    }
    if (typeof next !== 'function') return next;
    const limit = this.#options.replyTimeoutMs ?? 10_000;
    try {
      return toFixedReply(
        await withTimeout(
          Promise.resolve().then(() => next(record)),
          limit,
          'the reply function',
        ),
      );
    } catch (error) {
      return this.#failure(
        `@yourtool/testing: the reply function for request #${record.index} failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  #failure(text: string): FixedReply {
    return { kind: 'error', status: 500, shape: 'status', message: text, retryAfterSeconds: null };
  }
}

/**
 * Starts a scripted provider on 127.0.0.1 and a free port. Point any adapter's `base_url` at
 * `provider.url` (or hand `createRuntime` `provider.modelsYaml(...)`), script the replies, run
 * the application, then assert on `provider.requests`.
 *
 * ```ts
 * const provider = await startScriptedProvider();
 * provider.reply(text('Hello!', { chunks: 3 }), usage({ input_tokens: 12, output_tokens: 3 }));
 * // ... the application calls the model through a real adapter ...
 * provider.requests[0]?.lastUserText; // what the application sent
 * await provider.close();
 * ```
 */
export async function startScriptedProvider(
  options: ScriptedProviderOptions = {},
): Promise<ScriptedProvider> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return new ScriptedProviderServer(server, options);
}
