import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMemoryLogger } from '@yourtool/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { McpServers, mcpToolName } from '../src/index.js';
// @ts-expect-error: plain JavaScript fixture
import { createToolsServer } from './fixtures/tools-server.mjs';
import { callContext, handlerNamed } from './helpers.js';

const TOKEN = 'Bearer test-token-123';
let http: Server;
let url: string;
const seenAuth: (string | undefined)[] = [];
const serverLog: string[] = [];
const deleted: string[] = [];
/** The server's sessions by id: clearing it is a server restart that forgot them. */
const sessions = new Map<string, StreamableHTTPServerTransport>();

async function body(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
}

beforeAll(async () => {
  http = createServer(async (req, res) => {
    seenAuth.push(req.headers.authorization);
    if (req.headers.authorization !== TOKEN) {
      res.writeHead(401).end('unauthorized');
      return;
    }
    const id = req.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? sessions.get(id) : undefined;
    if (typeof id === 'string' && !transport) {
      res.writeHead(404).end(
        JSON.stringify({
          jsonrpc: '2.0',
          error: { code: -32001, message: 'Session not found' },
          id: null,
        }),
      );
      return;
    }
    if (!transport) {
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => void sessions.set(sid, created),
      });
      await createToolsServer((line: string) => serverLog.push(line)).connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res, req.method === 'POST' ? await body(req) : undefined);
    if (req.method === 'DELETE') deleted.push(String(id));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
});
afterAll(async () => {
  http.closeAllConnections();
  await new Promise<void>((resolve) => http.close(() => resolve()));
});

const opened: McpServers[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

async function start(headers: Record<string, string> = { Authorization: TOKEN }) {
  const logger = createMemoryLogger();
  const servers = await McpServers.start({ servers: { remote: { url, headers } }, logger });
  opened.push(servers);
  return { servers, logger };
}

describe('a streamable HTTP MCP server on loopback', () => {
  it('lists every page and calls a dotted tool under its own name, with the configured headers', async () => {
    const { servers } = await start();
    expect(servers.tools()).toHaveLength(14);
    const forecast = handlerNamed(servers.tools(), mcpToolName('remote', 'Weather.GetForecast'));
    expect(forecast.definition.side_effects).toBe('network');
    expect(await forecast.run({ city: 'Lima' }, callContext().context)).toEqual([
      { type: 'text', text: 'Sunny in Lima' },
    ]);
    expect(seenAuth.at(-1)).toBe(TOKEN);
    await servers.close();
    expect(deleted).toHaveLength(1);
  });

  it('cancels a call mid-way', async () => {
    const { servers } = await start();
    const controller = new AbortController();
    const call = handlerNamed(servers.tools(), 'remote_slow').run(
      {},
      callContext(controller.signal).context,
    );
    setTimeout(() => controller.abort(new Error('turn cancelled')), 100);
    await expect(call).rejects.toThrow('turn cancelled');
    await expect.poll(() => serverLog).toContain('slow: cancelled');
  });

  it('hears a tool list change over the stream and applies it at refresh()', async () => {
    const { servers } = await start();
    await handlerNamed(servers.tools(), 'remote_grow').run({}, callContext().context);
    await expect.poll(() => servers.changePending).toBe(true);
    expect(await servers.refresh()).toBe(true);
    expect(servers.tools().map((t) => t.definition.name)).toContain('remote_late_tool');
  });

  it('starts a new session when the server forgot its own (a 404), answering is_error meanwhile', async () => {
    const { servers, logger } = await start();
    const echo = handlerNamed(servers.tools(), 'remote_echo');
    sessions.clear();
    await expect(echo.run({ text: 'a' }, callContext().context)).rejects.toThrow(
      /failed to run "echo"/,
    );
    expect(logger.warnings().map((w) => w.obj.event)).toContain('mcp_server_closed');
    await expect.poll(() => servers.status()[0]?.state, { timeout: 10_000 }).toBe('ready');
    expect(await echo.run({ text: 'b' }, callContext().context)).toEqual([
      { type: 'text', text: '{"text":"b"}' },
    ]);
  });

  it("takes the SDK's OAuth provider: its access token authorizes every request", async () => {
    const asked: string[] = [];
    const authProvider: OAuthClientProvider = {
      redirectUrl: undefined,
      clientMetadata: { redirect_uris: [] },
      clientInformation: () => undefined,
      tokens: () => {
        asked.push('tokens');
        return { access_token: TOKEN.slice('Bearer '.length), token_type: 'Bearer' };
      },
      saveTokens: () => {},
      redirectToAuthorization: () => {},
      saveCodeVerifier: () => {},
      codeVerifier: () => 'verifier',
    };
    const servers = await McpServers.start({ servers: { remote: { url, authProvider } } });
    opened.push(servers);
    expect(
      await handlerNamed(servers.tools(), 'remote_echo').run({ text: 'o' }, callContext().context),
    ).toEqual([{ type: 'text', text: '{"text":"o"}' }]);
    expect(asked.length).toBeGreaterThan(0);
    expect(seenAuth.at(-1)).toBe(TOKEN);
  });

  it('names the server a refused token belongs to, and never the token', async () => {
    const failing = McpServers.start({
      servers: { remote: { url, headers: { Authorization: 'Bearer wrong-secret' } } },
    });
    await expect(failing).rejects.toThrow(/MCP server "remote" could not be started/);
    await expect(failing).rejects.not.toThrow(/wrong-secret/);
  });
});
