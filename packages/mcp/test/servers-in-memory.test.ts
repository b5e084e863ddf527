import { createMemoryLogger, validateToolDefinition } from '@yourtool/core';
import { afterEach, describe, expect, it } from 'vitest';
import { McpServers, mcpToolName } from '../src/index.js';
// @ts-expect-error: plain JavaScript fixture
import { PIXEL } from './fixtures/tools-server.mjs';
import { callContext, handlerNamed, inMemoryServer } from './helpers.js';

const opened: McpServers[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

async function start(extra: Record<string, unknown> = {}) {
  const logger = createMemoryLogger();
  const fixture = inMemoryServer(extra);
  const servers = await McpServers.start({ servers: { docs: fixture.config }, logger });
  opened.push(servers);
  return { servers, logger, log: fixture.log };
}

describe('McpServers over the in-memory transport', () => {
  it('lists every page and registers each tool under a valid, derived name', async () => {
    const { servers, logger } = await start();
    const names = servers.tools().map((t) => t.definition.name);
    // 15 tools over three pages of five; the recursive schema is skipped
    expect(names).toHaveLength(14);
    expect(names).toContain('docs_echo');
    expect(names).toContain(mcpToolName('docs', 'Weather.GetForecast'));
    expect(names).not.toContain(mcpToolName('docs', 'recursive'));
    for (const tool of servers.tools())
      expect(() => validateToolDefinition(tool.definition)).not.toThrow();
    const skipped = logger.warnings().find((w) => w.obj.event === 'mcp_tool_skipped');
    expect(skipped?.obj).toMatchObject({ server: 'docs', tool: 'recursive', construct: '$ref' });
  });

  it('calls a dotted, capitalised tool under its own MCP name', async () => {
    const { servers } = await start();
    const tool = handlerNamed(servers.tools(), mcpToolName('docs', 'Weather.GetForecast'));
    expect(tool.definition.name).toMatch(/^docs_weather_getforecast_[0-9a-f]{8}$/);
    expect(await tool.run({ city: 'Oslo' }, callContext().context)).toEqual([
      { type: 'text', text: 'Sunny in Oslo' },
    ]);
  });

  it('applies allow and deny lists', async () => {
    const { servers } = await start({ allow: ['echo', 'st*'], deny: ['strict'] });
    expect(servers.tools().map((t) => t.definition.name)).toEqual(['docs_echo', 'docs_stats']);
  });

  it('projects images, audio and resources, warning about what is lossy', async () => {
    const { servers, logger } = await start();
    const { context } = callContext();
    const picture = await handlerNamed(servers.tools(), 'docs_picture').run({}, context);
    expect(picture).toEqual([
      { type: 'image', source: { kind: 'base64', data: PIXEL }, media_type: 'image/png' },
      { type: 'text', text: '[audio: audio/wav, 3 bytes omitted]' },
    ]);
    const resources = await handlerNamed(servers.tools(), 'docs_resources').run({}, context);
    expect(resources).toEqual([
      { type: 'text', text: '[resource: notes <file:///notes.md>]' },
      { type: 'text', text: '[resource <file:///a.txt>]\nalpha' },
      { type: 'image', source: { kind: 'base64', data: PIXEL }, media_type: 'image/png' },
    ]);
    const lossy = logger.warnings().filter((w) => w.obj.event === 'mcp_lossy_projection');
    expect(lossy.map((w) => w.obj.block_type)).toEqual([
      'audio',
      'resource_link',
      'resource',
      'resource',
    ]);
    expect(lossy[0]?.obj).toMatchObject({
      server: 'docs',
      tool: 'picture',
      tool_use_id: 'tu_test',
    });
  });

  it('gives structured content as JSON text, checked against the output schema', async () => {
    const { servers } = await start();
    const stats = handlerNamed(servers.tools(), 'docs_stats');
    expect(await stats.run({}, callContext().context)).toEqual([
      { type: 'text', text: '{"count":3}' },
    ]);
    await expect(stats.run({ broken: true }, callContext().context)).rejects.toThrow(
      /output schema/,
    );
  });

  it('turns isError results and invalid-params errors into errors the model reads', async () => {
    const { servers } = await start();
    await expect(
      handlerNamed(servers.tools(), 'docs_fails').run({}, callContext().context),
    ).rejects.toThrow('disk full');
    await expect(
      handlerNamed(servers.tools(), 'docs_strict').run({}, callContext().context),
    ).rejects.toThrow(/invalid arguments for "strict": .*missing "path"/);
  });

  it('passes progress notifications to progress()', async () => {
    const { servers } = await start();
    const { context, updates } = callContext();
    expect(await handlerNamed(servers.tools(), 'docs_progress').run({}, context)).toEqual([
      { type: 'text', text: 'progressed' },
    ]);
    expect(updates).toEqual([
      { progress: 1, total: 2, message: 'step 1' },
      { progress: 2, total: 2, message: 'step 2' },
    ]);
  });

  it('cancels a running call when the turn aborts, and the server sees the cancellation', async () => {
    const { servers, log } = await start();
    const controller = new AbortController();
    const call = handlerNamed(servers.tools(), 'docs_slow').run(
      {},
      callContext(controller.signal).context,
    );
    setTimeout(() => controller.abort(new Error('turn cancelled')), 50);
    await expect(call).rejects.toThrow('turn cancelled');
    await expect.poll(() => log).toContain('slow: cancelled');
  });

  it('cuts a call at its deadline, configured per tool', async () => {
    const { servers } = await start({ tools: { slow: { timeout_ms: 100 } } });
    await expect(
      handlerNamed(servers.tools(), 'docs_slow').run({}, callContext().context),
    ).rejects.toThrow(/did not answer within 0.1 s/);
  });

  it('lets progress restart the deadline only where configured', async () => {
    const plain = await start({ timeout_ms: 200 });
    await expect(
      handlerNamed(plain.servers.tools(), 'docs_ticking').run({}, callContext().context),
    ).rejects.toThrow(/did not answer within 0.2 s/);
    const extended = await start({ timeout_ms: 200, progress_extends_deadline: true });
    const { context, updates } = callContext();
    expect(await handlerNamed(extended.servers.tools(), 'docs_ticking').run({}, context)).toEqual([
      { type: 'text', text: 'ticked' },
    ]);
    expect(updates).toHaveLength(8);
    const capped = await start({
      timeout_ms: 200,
      progress_extends_deadline: true,
      max_total_timeout_ms: 250,
    });
    await expect(
      handlerNamed(capped.servers.tools(), 'docs_ticking').run({}, callContext().context),
    ).rejects.toThrow(/did not answer/);
  });

  it('applies a tool list change only at refresh(), between turns', async () => {
    const { servers } = await start();
    const changes: number[] = [];
    servers.onToolsChanged(() => changes.push(1));
    await handlerNamed(servers.tools(), 'docs_grow').run({}, callContext().context);
    await expect.poll(() => servers.changePending).toBe(true);
    expect(changes).toEqual([1]);
    expect(servers.tools().map((t) => t.definition.name)).not.toContain('docs_late_tool');
    expect(await servers.refresh()).toBe(true);
    const late = handlerNamed(servers.tools(), 'docs_late_tool');
    expect(await late.run({}, callContext().context)).toEqual([{ type: 'text', text: 'late' }]);
    expect(servers.changePending).toBe(false);
  });

  it('defaults side effects to asking for confirmation; trusted servers map readOnlyHint to read', async () => {
    const plain = await start();
    const forecast = mcpToolName('docs', 'Weather.GetForecast');
    expect(handlerNamed(plain.servers.tools(), forecast).definition.side_effects).toBe('execute');
    expect(plain.servers.serversNeedingConfirmation()).toEqual(['docs']);
    const trusted = await start({ trusted: true, tools: { echo: { side_effects: 'none' } } });
    expect(handlerNamed(trusted.servers.tools(), forecast).definition.side_effects).toBe('read');
    expect(handlerNamed(trusted.servers.tools(), 'docs_echo').definition.side_effects).toBe('none');
    expect(handlerNamed(trusted.servers.tools(), 'docs_slow').definition.side_effects).toBe(
      'execute',
    );
  });
});
