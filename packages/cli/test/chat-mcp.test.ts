import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ScriptedProvider, text, toolCall } from '@yourtool/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { run, startScriptedProvider, workspace } from './helpers.js';

const STDIO_SERVER = fileURLToPath(
  new URL('../../mcp/test/fixtures/stdio-server.mjs', import.meta.url),
);

let provider: ScriptedProvider;
let dir: { dir: string; dispose(): void } | undefined;
beforeAll(async () => {
  provider = await startScriptedProvider();
});
afterAll(() => provider.close());
afterEach(() => {
  provider.clear();
  dir?.dispose();
});

describe('yourtool chat --mcp', () => {
  it("offers an MCP server's tools, asks before running one, and ends the server with the chat", async () => {
    dir = workspace(provider);
    writeFileSync(
      join(dir.dir, 'mcp.yaml'),
      [
        'mcp_servers:',
        '  weather:',
        `    command: ${JSON.stringify(process.execPath)}`,
        `    args: [${JSON.stringify(STDIO_SERVER)}]`,
        `    env: { WEATHER_TOKEN: '\${WEATHER_TOKEN}' }`,
        '    allow: [echo]',
        '',
      ].join('\n'),
    );
    provider.reply(toolCall('weather_echo', { text: 'hi' })).reply(text('It echoed.'));
    const { code, stdout, stderr } = await run(
      ['chat', '--create', '--store', 'sqlite:chat.db', '--no-tools', '--mcp', 'mcp.yaml'],
      dir.dir,
      { input: ['Echo hi', 'y', ''].join('\n'), env: { WEATHER_TOKEN: 'sunny-secret' } },
    );
    expect(stderr).not.toContain('sunny-secret');
    expect(code).toBe(0);
    expect(stdout).toContain('Allow weather_echo (execute) {"text":"hi"}? [y/N] y');
    expect(stdout).toContain('← weather_echo: {"text":"hi"}');
    expect(stdout).toContain('It echoed.');
    expect(provider.requests[0]?.tools).toEqual(['weather_echo']);
  });

  it('names the server and the variable when the config cannot be used', async () => {
    dir = workspace(provider);
    writeFileSync(
      join(dir.dir, 'mcp.yaml'),
      `mcp_servers:\n  weather: { command: node, env: { T: '\${MISSING_TOKEN}' } }\n`,
    );
    const { code, stderr } = await run(
      ['chat', '--create', '--store', 'sqlite:chat.db', '--mcp', 'mcp.yaml'],
      dir.dir,
      { input: '' },
    );
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/mcp_servers\.weather\.env\.T: the environment variable MISSING_TOKEN/);
  });
});
