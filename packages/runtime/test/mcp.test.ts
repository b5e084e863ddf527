import { fileURLToPath } from 'node:url';
import { type LoopbackServer, startLoopbackServer } from '@yourtool/conformance';
import { createMemoryLogger } from '@yourtool/core';
import { materializeReadmeExample } from '@yourtool/testkit';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRuntime, InvalidRuntimeOptionError, RuntimeSetupError } from '../src/index.js';
import { anthropicText, anthropicToolCall } from './mcp-replies.js';

const STDIO_SERVER = fileURLToPath(
  new URL('../../mcp/test/fixtures/stdio-server.mjs', import.meta.url),
);
// an optional peer of the runtime (a dependency edge would close a cycle through @yourtool/testing)
const MCP = '@yourtool/mcp';
const { mcpToolName } = (await import(MCP)) as {
  mcpToolName(server: string, tool: string): string;
};
const FORECAST = mcpToolName('weather', 'Weather.GetForecast');

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const models = () => `
adapters:
  anthropic: { type: anthropic, api_key: sk-ant-mcp-test-000000, base_url: '${server.url}', max_retries: 0 }
models:
  anthropic:claude-sonnet-4-6: { adapter: anthropic, wire_name: claude-sonnet-4-6, aliases: [sonnet] }
`;

const weather = (extra = '') => `
mcp_servers:
  weather:
    command: ${JSON.stringify(process.execPath)}
    args: [${JSON.stringify(STDIO_SERVER)}]
    env: { WEATHER_TOKEN: '\${WEATHER_TOKEN}' }
${extra}`;

describe('createRuntime with MCP servers', () => {
  it("runs the mcp README's twenty lines: the server's tool in a session, the process ended at close", async () => {
    server.enqueue(
      anthropicToolCall(FORECAST, { city: 'Oslo' }),
      anthropicText('No rain in Oslo.'),
    );
    process.env.ANTHROPIC_API_KEY = 'sk-ant-readme-0000000000';
    process.env.ANTHROPIC_BASE_URL = server.url;
    process.env.WEATHER_TOKEN = 'weather-secret';
    try {
      const file = materializeReadmeExample({
        readme: fileURLToPath(new URL('../../mcp/README.md', import.meta.url)),
        heading: '## Twenty lines',
        rewrite: {
          '@yourtool/runtime': fileURLToPath(new URL('../src/index.ts', import.meta.url)),
          './weather-server.mjs': STDIO_SERVER,
        },
        outFile: fileURLToPath(new URL('./.generated/mcp-readme-twenty-lines.ts', import.meta.url)),
      });
      const module = (await import(/* @vite-ignore */ `${file}?run=${Date.now()}`)) as {
        checks: number;
      };
      expect(module.checks).toBe(1);
    } finally {
      delete process.env.WEATHER_TOKEN;
    }
    const [first, second] = server.requests.map((r) => JSON.stringify(r.body));
    expect(first).toContain(FORECAST);
    expect(second).toContain('Sunny in Oslo');
  });

  it('offers MCP tools next to its own, says once which servers need a confirm hook, closes them', async () => {
    const logger = createMemoryLogger();
    const runtime = await createRuntime({
      models: models() + weather(),
      env: { WEATHER_TOKEN: 'weather-secret' },
      logger,
    });
    try {
      const warned = logger.warnings().filter((w) => w.obj.event === 'mcp_tools_need_confirmation');
      expect(warned).toHaveLength(1);
      expect(warned[0]?.obj.servers).toEqual(['weather']);
      expect(warned[0]?.msg).toMatch(/confirm.*side_effects/s);
      expect(runtime.mcp?.status()).toEqual([{ server: 'weather', state: 'ready', tools: 14 }]);
    } finally {
      await runtime.close();
    }
    expect(runtime.mcp?.status()[0]?.state).toBe('closed');
  });

  it('says nothing about confirmation when a confirm hook is set; takes mcpServers as an option', async () => {
    const logger = createMemoryLogger();
    const runtime = await createRuntime({
      models: models(),
      mcpServers: weather(),
      env: { WEATHER_TOKEN: 'x' },
      confirm: () => true,
      logger,
    });
    try {
      expect(
        logger.warnings().filter((w) => w.obj.event === 'mcp_tools_need_confirmation'),
      ).toEqual([]);
      expect(runtime.mcp?.tools().map((t) => t.definition.name)).toContain(FORECAST);
    } finally {
      await runtime.close();
    }
  });

  it('registers tools a server added, between turns, at refreshTools()', async () => {
    const runtime = await createRuntime({
      models: models() + weather(),
      env: { WEATHER_TOKEN: 'x' },
      confirm: () => true,
      logger: false,
    });
    try {
      const grow = runtime.mcp?.tools().find((t) => t.definition.name === 'weather_grow');
      const signal = new AbortController().signal;
      await grow?.run(
        {},
        { session_id: 's', tool_use_id: 't', workspace_path: '/', signal, progress: () => {} },
      );
      await expect.poll(() => runtime.mcp?.changePending).toBe(true);
      expect(await runtime.refreshTools()).toEqual(['weather_late_tool']);
      server.enqueue(anthropicText('ok'));
      const session = await runtime.sessions.createSession({ workspace_path: '/tmp' });
      await runtime.sessions.sendAndWait(session.id, 'hi');
      const body = server.requests[0]?.body as { tools?: { name: string }[] } | undefined;
      const offered = (body?.tools ?? []).map((t) => t.name);
      expect(offered).toContain('weather_late_tool');
      expect(await runtime.refreshTools()).toEqual([]);
    } finally {
      await runtime.close();
    }
  });

  it('refuses an mcpServers option it cannot read, before starting anything', async () => {
    await expect(createRuntime({ models: models(), mcpServers: 5 as never })).rejects.toThrow(
      InvalidRuntimeOptionError,
    );
    await expect(
      createRuntime({ models: models(), mcpServers: { file: 5 } as never }),
    ).rejects.toThrow(/mcpServers\.file must be a path/);
    await expect(
      createRuntime({
        models: models(),
        mcpServers: { file: '/nonexistent/mcp.yaml' },
        logger: false,
      }),
    ).rejects.toThrow(/cannot read mcpServers file \/nonexistent\/mcp\.yaml/);
  });

  it('names the server and the path of a problem, never a secret', async () => {
    await expect(
      createRuntime({ models: models() + weather(), env: {}, logger: false }),
    ).rejects.toThrow(
      /mcp_servers\.weather\.env\.WEATHER_TOKEN: the environment variable WEATHER_TOKEN/,
    );
    const bad = createRuntime({
      models: `${models()}
mcp_servers:
  gh: { url: 'https://example.com/mcp', headers: { Authorization: 'Bearer hush-1234' }, colour: red }
`,
      logger: false,
    });
    await expect(bad).rejects.toThrow(/MCP server "gh": .*colour/);
    await expect(bad).rejects.not.toThrow(/hush-1234/);
    await expect(
      createRuntime({
        models: `${models()}\nmcp_servers:\n  ghost: { command: /nonexistent/server }\n`,
        logger: false,
      }),
    ).rejects.toThrow(/MCP server "ghost" could not be started/);
    await expect(
      createRuntime({
        models: models() + weather(),
        mcpServers: weather(),
        env: { WEATHER_TOKEN: 'x' },
        logger: false,
      }),
    ).rejects.toThrow(RuntimeSetupError);
  });
});
