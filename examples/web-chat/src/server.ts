import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ChatBridge, readJsonBody, writeResponse } from '@yourtool/ai-sdk';
import type { Logger } from '@yourtool/core';
import { createRuntime, type Runtime } from '@yourtool/runtime';
import { SqlApprovalStore, type SqlSessionStore } from '@yourtool/store';
import { bundleClient } from './bundle.js';
import { PAGE } from './page.js';
import { chatTools, type NoteBook } from './tools.js';

/** What the web chat needs. */
export interface WebChatOptions {
  /** models.yaml text. */
  models: string;
  /** routing.yaml text. */
  routing?: string;
  /** The models the page's picker offers, as canonical ids of models.yaml; the first is the default. */
  choices: string[];
  /** The SQLite file holding the chat; its latest session is resumed. */
  db: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  logger?: Logger | false;
  env?: Record<string, string | undefined>;
}

/** A running web chat. */
export interface WebChat {
  url: string;
  runtime: Runtime;
  sessionId: string;
  notes: NoteBook;
  close(): Promise<void>;
}

const WORKSPACE = 'web-chat';

/**
 * Starts the chat: a runtime on a SQLite session, the AI SDK bridge (approvals in the same
 * database), and an HTTP server with the page, its script, and four JSON routes.
 */
export async function startWebChat(options: WebChatOptions): Promise<WebChat> {
  const notes: NoteBook = [];
  let bridge: ChatBridge | undefined;
  const runtime = await createRuntime({
    models: options.models,
    ...(options.routing ? { routing: options.routing } : {}),
    store: `sqlite:${options.db}`,
    tools: chatTools(notes),
    confirm: (request) => (bridge as ChatBridge).confirm(request),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    ...(options.env ? { env: options.env } : {}),
  });
  const store = runtime.store as SqlSessionStore;
  bridge = new ChatBridge({
    sessions: runtime.sessions,
    store,
    approvals: new SqlApprovalStore(store),
  });
  const { sessions } = await store.listSessions({ workspace_path: WORKSPACE, limit: 1 });
  const session =
    sessions[0] ?? (await runtime.sessions.createSession({ workspace_path: WORKSPACE }));
  const script = await bundleClient();
  const routes = new Routes(runtime, bridge, session.id, options.choices, script);
  const server: Server = createServer((req, res) => {
    routes.serve(req, res).catch(() => {
      // the error stays on the server: the page gets a bare 500
      if (!res.headersSent) res.writeHead(500).end();
      else res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    runtime,
    sessionId: session.id,
    notes,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await runtime.close();
    },
  };
}

/** The HTTP routes. */
class Routes {
  constructor(
    readonly runtime: Runtime,
    readonly bridge: ChatBridge,
    readonly sessionId: string,
    readonly choices: string[],
    readonly script: string,
  ) {}

  async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const route = `${req.method} ${new URL(req.url ?? '/', 'http://x').pathname}`;
    if (route === 'GET /') return send(res, 200, 'text/html; charset=utf-8', PAGE);
    if (route === 'GET /app.js') return send(res, 200, 'text/javascript', this.script);
    if (route === 'GET /api/state') return json(res, 200, await this.state());
    if (route === 'POST /api/chat') {
      const response = await this.bridge.respond(await readJsonBody(req), {
        sessionId: this.sessionId,
      });
      return writeResponse(res, response);
    }
    if (route === 'POST /api/model') return this.swap(req, res);
    return send(res, 404, 'text/plain', 'not found');
  }

  /** What a (re)loaded page shows: the stored history, the model, the running cost. */
  async state() {
    const session = await this.runtime.store.getSession(this.sessionId);
    return {
      session_id: this.sessionId,
      model: session?.active_model ?? this.choices[0],
      choices: this.choices,
      session_cost_usd: await this.runtime.sessionCost(this.sessionId),
      messages: await this.bridge.history(this.sessionId),
    };
  }

  /** The picker: makes a model the session's choice for the next turns (`/model`). */
  async swap(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = (await readJsonBody(req)) as { model?: unknown };
    if (typeof body.model !== 'string' || !this.choices.includes(body.model)) {
      return json(res, 400, { error: `model: expected one of ${this.choices.join(', ')}` });
    }
    const session = await this.runtime.sessions.swapModel(this.sessionId, body.model);
    return json(res, 200, { model: session.active_model });
  }
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'content-type': type }).end(body);
}

function json(res: ServerResponse, status: number, body: unknown): void {
  send(res, status, 'application/json', JSON.stringify(body));
}
