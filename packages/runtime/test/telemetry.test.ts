import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type LoopbackServer,
  loadFixtureDirectory,
  startLoopbackServer,
} from '@yourtool/conformance';
import { createMemoryLogger } from '@yourtool/core';
import { createOtelProviders } from '@yourtool/testkit/otel';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRuntime, defineTool, InvalidRuntimeOptionError } from '../src/index.js';

// Issue 38, telemetry through createRuntime: its `telemetry` option reaches the session manager
// (agent name, tracer and meter providers handed in, nothing registered globally), and a turn's
// spans carry where each call went, the provider's finish reason and tool call id beside the
// canonical ones, and the turn's model from its start.

const fixtures = (pkg: string) =>
  loadFixtureDirectory(fileURLToPath(new URL(`../../${pkg}/test/fixtures`, import.meta.url)));
const openai = fixtures('openai');

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const MODELS = `
adapters:
  openai: { type: openai, api_key_env: TEST_OPENAI_KEY, base_url_env: TEST_LLM_BASE_URL, max_retries: 0 }
models:
  openai:gpt-5: { adapter: openai, wire_name: gpt-5, aliases: [gpt5] }
`;

const readFile = defineTool({
  name: 'read_file',
  description: 'Read a UTF-8 text file of the workspace.',
  side_effects: 'read',
  input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  run: () => 'contents',
});

const runtimeWith = (telemetry: unknown) =>
  createRuntime({
    models: MODELS,
    routing: 'global_default: gpt5',
    store: `sqlite:${join(mkdtempSync(join(tmpdir(), 'runtime-otel-')), 'sessions.db')}`,
    tools: [readFile],
    logger: createMemoryLogger(),
    env: { TEST_OPENAI_KEY: 'sk-runtime-otel-0000000000', TEST_LLM_BASE_URL: server.url },
    telemetry: telemetry as never,
  });

describe("createRuntime's telemetry option", () => {
  it("a turn's spans and metric points go to the providers handed in, with every issue-38 attribute", async () => {
    const otel = createOtelProviders();
    const runtime = await runtimeWith({
      agentName: 'support',
      tracerProvider: otel.tracerProvider,
      meterProvider: otel.meterProvider,
    });
    try {
      server.enqueue(...(openai['tool-call-stream'] ?? []), ...(openai['text-stream'] ?? []));
      const session = await runtime.sessions.createSession({ workspace_path: '/w' });
      await runtime.sessions.swapModel(session.id, 'gpt5');
      await runtime.sessions.sendAndWait(session.id, 'Read it.');
    } finally {
      await runtime.close();
    }
    const port = Number(new URL(server.url).port);
    const spans = otel.spans();
    const turn = spans.find((s) => s.name === 'invoke_agent support');
    expect(turn?.attributes).toMatchObject({
      'gen_ai.agent.name': 'support',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-5',
    });
    const calls = spans
      .filter((s) => s.name === 'chat gpt-5')
      .sort(
        (a, b) => Number(a.attributes['yourtool.step']) - Number(b.attributes['yourtool.step']),
      );
    expect(calls.map((s) => s.attributes['gen_ai.response.finish_reasons'])).toEqual([
      ['tool_calls'],
      ['stop'],
    ]);
    expect(calls.map((s) => s.attributes['yourtool.stop_reason'])).toEqual([
      'tool_use',
      'end_turn',
    ]);
    for (const call of calls) {
      expect(call.attributes).toMatchObject({ 'server.address': '127.0.0.1', 'server.port': port });
      expect(call.parentSpanContext?.spanId).toBe(turn?.spanContext().spanId);
    }
    const tool = spans.find((s) => s.name === 'execute_tool read_file');
    expect(tool?.attributes['gen_ai.tool.call.id']).toMatch(/^tu_/);
    expect(tool?.attributes['yourtool.tool.provider_call_id']).toBe(
      'call_Conformance0ToolCall0002',
    );
    const points = await otel.metricPoints();
    expect(points.map((p) => p.name)).toEqual(
      expect.arrayContaining(['gen_ai.client.operation.duration', 'gen_ai.client.token.usage']),
    );
    for (const point of points) {
      expect(point.attributes, point.name).toMatchObject({
        'server.address': '127.0.0.1',
        'server.port': port,
      });
    }
    await otel.shutdown();
  });

  it('is checked as the session manager checks it', async () => {
    await expect(runtimeWith({ agentName: '' })).rejects.toThrow(InvalidRuntimeOptionError);
    await expect(runtimeWith({ tracerProvider: {} })).rejects.toThrow(
      /telemetry\.tracerProvider must be an OpenTelemetry TracerProvider/,
    );
    await expect(runtimeWith({ captureContnet: true })).rejects.toThrow(
      /unknown option "telemetry\.captureContnet".*captureContent/,
    );
  });
});
