import { fileURLToPath } from 'node:url';
import {
  type LoopbackServer,
  loadFixtureDirectory,
  type ScriptedResponse,
  startLoopbackServer,
} from '@yourtool/conformance';
import { createMemoryLogger, newRequestId, newToolUseId } from '@yourtool/core';
import { fitsToolNameRules, STRICT_TOOL_NAME_RULES, wireToolName } from '@yourtool/core/adapter';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assistant, readFile, result, text, user } from '../../openai/test/helpers.js';
import { MistralAdapter } from '../src/index.js';

/**
 * Tool names in history (decision 0140) on a compatible server: the shared Chat Completions
 * codec sends the derived name and reads a reply calling it back as the canonical name.
 */

const fixtures = loadFixtureDirectory(
  fileURLToPath(new URL('./fixtures-mistral', import.meta.url)),
);
const MODEL = 'mistral:mistral-large-latest';
const MCP = 'github.search_issues';

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

describe('mistral preset: a tool use named outside the rule', () => {
  it('goes out under the derived name and a reply calling it comes back canonical', async () => {
    const logger = createMemoryLogger();
    const adapter = new MistralAdapter(
      { api_key: 'mistral-test-key', base_url: server.url },
      { logger },
    );
    const derived = wireToolName(MCP, STRICT_TOOL_NAME_RULES);
    const scripted = JSON.parse(
      JSON.stringify(fixtures['tool-call'] ?? []).replaceAll('read_file', derived),
    ) as ScriptedResponse[];
    server.enqueue(...scripted);
    const id = newToolUseId();
    const reply = await adapter.complete({
      request_id: newRequestId(),
      model: MODEL,
      max_output_tokens: 256,
      tools: [readFile],
      messages: [
        user(text('Find the bug report.')),
        assistant([{ type: 'tool_use', id, name: MCP, input: { q: 'crash' } }], MODEL),
        result(id, [text('#12 crash on start')]),
      ],
    });
    const body = server.requests.at(-1)?.body as {
      messages: Array<{ tool_calls?: Array<{ function: { name: string } }> }>;
    };
    const names = body.messages.flatMap((m) => (m.tool_calls ?? []).map((c) => c.function.name));
    expect(names).toEqual([derived]);
    expect(fitsToolNameRules(derived, STRICT_TOOL_NAME_RULES)).toBe(true);
    expect(reply.content.find((b) => b.type === 'tool_use')).toMatchObject({ name: MCP });
    expect(logger.warnings().filter((w) => w.obj.event === 'tool_name_mapped')).toHaveLength(1);
    await adapter.close();
  });
});
