import { fileURLToPath } from 'node:url';
import { createMemoryLogger } from '@yourtool/core';
import { afterEach, describe, expect, it } from 'vitest';
import { McpServerStartError, McpServers } from '../src/index.js';
import { callContext, handlerNamed } from './helpers.js';

const SERVER = fileURLToPath(new URL('./fixtures/stdio-server.mjs', import.meta.url));

const opened: McpServers[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

async function start(env: Record<string, string> = {}) {
  const logger = createMemoryLogger();
  const servers = await McpServers.start({
    servers: { local: { command: process.execPath, args: [SERVER], env } },
    logger,
    restart: { initial_delay_ms: 50 },
  });
  opened.push(servers);
  return { servers, logger };
}

function stderrLines(logger: ReturnType<typeof createMemoryLogger>): string[] {
  return logger.records
    .filter((r) => r.obj.event === 'mcp_server_stderr')
    .map((r) => String(r.obj.text));
}

describe('a stdio MCP server (a child process on the SDK server side)', () => {
  it('lists, calls, and sends the child stderr to the logger, with only the configured environment', async () => {
    process.env.YOURTOOL_TEST_SECRET = 'do-not-pass';
    try {
      const { servers, logger } = await start({ ONLY_THIS: '1' });
      expect(servers.tools()).toHaveLength(14);
      const echo = await handlerNamed(servers.tools(), 'local_echo').run(
        { text: 'hi' },
        callContext().context,
      );
      expect(echo).toEqual([{ type: 'text', text: '{"text":"hi"}' }]);
      const env = await handlerNamed(servers.tools(), 'local_env').run({}, callContext().context);
      const names = (env as { text: string }[])[0]?.text.split(',') ?? [];
      expect(names).toContain('ONLY_THIS');
      expect(names).not.toContain('YOURTOOL_TEST_SECRET');
      await expect.poll(() => stderrLines(logger)).toContain('tools-server: started');
    } finally {
      delete process.env.YOURTOOL_TEST_SECRET;
    }
  });

  it('cancels a call mid-way: the child hears notifications/cancelled', async () => {
    const { servers, logger } = await start();
    const controller = new AbortController();
    const call = handlerNamed(servers.tools(), 'local_slow').run(
      {},
      callContext(controller.signal).context,
    );
    setTimeout(() => controller.abort(new Error('turn cancelled')), 100);
    await expect(call).rejects.toThrow('turn cancelled');
    await expect.poll(() => stderrLines(logger)).toContain('slow: cancelled');
  });

  it('answers is_error while a crashed server restarts, then works again', async () => {
    const { servers, logger } = await start();
    const crash = handlerNamed(servers.tools(), 'local_crash');
    await expect(crash.run({}, callContext().context)).rejects.toThrow(
      /failed to run "crash".*[Cc]onnection closed/,
    );
    const echo = handlerNamed(servers.tools(), 'local_echo');
    await expect(echo.run({}, callContext().context)).rejects.toThrow(/restarting after a crash/);
    expect(logger.warnings().map((w) => w.obj.event)).toContain('mcp_server_closed');
    await expect.poll(() => servers.status()[0]?.state, { timeout: 10_000 }).toBe('ready');
    expect(await echo.run({ text: 'back' }, callContext().context)).toEqual([
      { type: 'text', text: '{"text":"back"}' },
    ]);
    expect(logger.warnings().map((w) => w.obj.event)).toContain('mcp_server_restarted');
  });

  it('ends the child at close(): its tools answer with an error afterwards', async () => {
    const { servers } = await start();
    const echo = handlerNamed(servers.tools(), 'local_echo');
    await servers.close();
    expect(servers.status()[0]?.state).toBe('closed');
    await expect(echo.run({}, callContext().context)).rejects.toThrow(/is closed/);
  });

  it('names a server whose process exits at once, with no unhandled rejection', async () => {
    const failing = McpServers.start({
      servers: { quitter: { command: process.execPath, args: ['-e', 'process.exit(1)'] } },
    });
    await expect(failing).rejects.toThrow(/MCP server "quitter" could not be started/);
  });

  it('names the server that cannot start', async () => {
    const failing = McpServers.start({
      servers: { ghost: { command: '/nonexistent/mcp-server' } },
    });
    await expect(failing).rejects.toThrow(McpServerStartError);
    await expect(failing).rejects.toThrow(/MCP server "ghost" could not be started/);
  });
});
