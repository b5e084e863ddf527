import { fileURLToPath } from 'node:url';
import { fitsToolNameRules, STRICT_TOOL_NAME_RULES } from '@yourtool/core/adapter';
import { mcpToolName } from '@yourtool/mcp';
import { createRuntime, type Runtime } from '@yourtool/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedProvider, startScriptedProvider, text, toolCall } from '../src/index.js';
import { toolCallPairs, toolDeclarationProblems, wireTools } from './mcp-wire-rules.js';

// Issue 44: a session using an MCP server's tools swaps Claude -> GPT-5 -> Gemini -> GPT-4.1
// mid-conversation, through the real SDKs, every tool call and result valid on each wire. It
// lives here, not in @yourtool/mcp, because this package's tests already use the runtime (an
// mcp -> testing dev dependency would close a cycle through the runtime's optional peer).

const STDIO_SERVER = fileURLToPath(
  new URL('../../mcp/test/fixtures/stdio-server.mjs', import.meta.url),
);
const FORECAST = mcpToolName('docs', 'Weather.GetForecast');
const MODELS = {
  'anthropic:claude-sonnet-4-6': { aliases: ['claude'] },
  'openai:gpt-5': { aliases: ['gpt5'], api: 'responses' as const },
  'google:gemini-2.5-flash': { aliases: ['gemini'] },
  'openai:gpt-4.1': { aliases: ['gpt41'] },
};

let provider: ScriptedProvider;
let runtime: Runtime;
beforeAll(async () => {
  provider = await startScriptedProvider();
  runtime = await createRuntime({
    models: provider.modelsYaml({ models: MODELS }),
    mcpServers: {
      docs: {
        command: process.execPath,
        args: [STDIO_SERVER],
        allow: ['book_room', 'Weather.GetForecast', 'picture', 'echo'],
      },
    },
    confirm: () => true,
    logger: false,
  });
});
afterAll(async () => {
  await runtime.close();
  await provider.close();
});

describe('a session using MCP tools across Claude, GPT-5, Gemini and GPT-4.1 (Chat Completions)', () => {
  it('sends the $defs + nullable schema in the subset, and every call and result is valid on each wire', async () => {
    const session = await runtime.sessions.createSession({ workspace_path: '/tmp' });
    const steps: [string | null, string, Parameters<typeof toolCall>[1]][] = [
      [null, 'docs_book_room', { guest: { name: 'Ada', email: null }, nights: 2 }],
      ['gpt5', FORECAST, { city: 'Oslo' }],
      ['gemini', 'docs_picture', {}],
      ['gpt41', 'docs_echo', { text: 'chat' }],
    ];
    for (const [model, tool, input] of steps) {
      if (model) await runtime.sessions.swapModel(session.id, model);
      provider.reply(toolCall(tool, input)).reply(text(`done with ${tool}`));
      const turn = await runtime.sessions.sendAndWait(session.id, `use ${tool}`);
      expect(turn.text).toBe(`done with ${tool}`);
      const result = turn.messages.find((m) => m.role === 'tool')?.content[0];
      expect(result).toMatchObject({ type: 'tool_result', is_error: false });
    }
    expect(provider.requests.map((r) => r.format)).toEqual([
      'anthropic',
      'anthropic',
      'openai-responses',
      'openai-responses',
      'gemini',
      'gemini',
      'openai-chat',
      'openai-chat',
    ]);
    for (const request of provider.requests) {
      expect(toolDeclarationProblems(request)).toEqual([]);
      expect(
        wireTools(request)
          .map((t) => t.name)
          .sort(),
      ).toEqual(['docs_book_room', 'docs_echo', 'docs_picture', FORECAST].sort());
      for (const pair of toolCallPairs(request)) {
        expect(pair.answered, `${request.format}: ${pair.name}`).toBe(true);
        expect(fitsToolNameRules(pair.name, STRICT_TOOL_NAME_RULES)).toBe(true);
      }
    }
    // the booking schema as Claude received it: references inlined, Optional[X] a nullable type
    const booking = wireTools(provider.requests[0] as never).find(
      (t) => t.name === 'docs_book_room',
    );
    expect(booking?.schema).toMatchObject({
      properties: {
        guest: { type: 'object', properties: { email: { type: ['string', 'null'] } } },
        nights: { type: ['integer', 'null'] },
      },
    });
    // the last request holds all four tool rounds, each answered
    expect(toolCallPairs(provider.requests.at(-1) as never).map((p) => p.name)).toEqual([
      'docs_book_room',
      FORECAST,
      'docs_picture',
      'docs_echo',
    ]);
    // the MCP server received the calls under its own names, the arguments intact
    const history = await runtime.store.loadMessages(session.id);
    const results = history.messages.filter((m) => m.role === 'tool').map((m) => m.content[0]);
    expect(JSON.stringify(results[0])).toContain(
      '{\\"guest\\":{\\"name\\":\\"Ada\\",\\"email\\":null},\\"nights\\":2}',
    );
    expect(JSON.stringify(results[1])).toContain('Sunny in Oslo');
    expect(JSON.stringify(results[2])).toContain('image/png');
    expect(JSON.stringify(results[3])).toContain('{\\"text\\":\\"chat\\"}');
  });
});
