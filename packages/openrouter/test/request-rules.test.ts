import { fileURLToPath } from 'node:url';
import {
  type LoopbackServer,
  loadFixtureDirectory,
  type ScriptedResponse,
  startLoopbackServer,
} from '@yourtool/conformance';
import {
  type AdapterError,
  type CanonicalRequestInput,
  createMemoryLogger,
  InvalidRequestError,
  type MemoryLogger,
  type Message,
  newRequestId,
  newToolUseId,
  type StreamEvent,
} from '@yourtool/core';
import { wireToolName } from '@yourtool/core/adapter';
// The registry as models.yaml builds it (a relative import: the router is not a dependency).
import { ModelRegistry } from '@yourtool/router';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { assistant, readFile, result, text, user } from '../../openai/test/helpers.js';
import { OpenRouterAdapter } from '../src/index.js';

/**
 * Issue 24 through the real SDK on the loopback server: tool names outside the rule (item 5),
 * a history left empty by the encoder (the Chat Completions codec's guard), and the setup
 * problem of an adapter without a key (item 6).
 */

const fixtures = loadFixtureDirectory(fileURLToPath(new URL('./fixtures', import.meta.url)));
const CLAUDE = 'openrouter:anthropic/claude-sonnet-4.6';
const FOREIGN = 'fs.read';
const DERIVED = wireToolName(FOREIGN);
const KEY = 'sk-or-v1-setupproblem-SECRET-000000000000';

let server: LoopbackServer;
let logger: MemoryLogger;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());

/** The body of the last request the loopback server recorded. */
function lastBody(): unknown {
  const recorded = server.requests.at(-1);
  if (!recorded) throw new Error('no request reached the server');
  return recorded.body;
}
beforeEach(() => {
  server.reset();
  logger = createMemoryLogger();
});
afterEach(() => {
  vi.unstubAllEnvs();
});

const adapter = () =>
  new OpenRouterAdapter({ api_key: 'sk-or-test-0000', base_url: server.url }, { logger });

/** A recorded reply with its `read_file` call renamed to `name`. */
function replyCalling(scenario: string, name: string): ScriptedResponse[] {
  const found = fixtures[scenario];
  if (!found) throw new Error(`no fixture ${scenario}`);
  return JSON.parse(JSON.stringify(found).replaceAll('read_file', name)) as ScriptedResponse[];
}

function history(): Message[] {
  const id = newToolUseId();
  return [
    user(text('Read it.')),
    assistant([{ type: 'tool_use', id, name: FOREIGN, input: { path: 'a' } }], CLAUDE),
    result(id, [text('A')]),
    user(text('Again.')),
  ];
}

const ask = (messages: Message[], stream = false): CanonicalRequestInput => ({
  request_id: newRequestId(),
  model: CLAUDE,
  max_output_tokens: 256,
  messages,
  tools: [readFile],
  stream,
});

type Body = { messages: Array<{ tool_calls?: Array<{ function: { name: string } }> }> };
const sentNames = () =>
  (lastBody() as Body).messages.flatMap((m) => (m.tool_calls ?? []).map((c) => c.function.name));

describe('OpenRouter: a tool named outside the rule', () => {
  it('goes out under the derived name and a reply calling it comes back canonical', async () => {
    server.enqueue(...replyCalling('tool-call', DERIVED));
    const reply = await adapter().complete(ask(history()));
    expect(sentNames()).toEqual([DERIVED]);
    expect(
      logger
        .warnings()
        .filter((w) => w.obj.event === 'tool_name_mapped')
        .map((w) => [w.obj.adapter, w.obj.tool_name, w.obj.wire_name]),
    ).toEqual([['openrouter', FOREIGN, DERIVED]]);
    expect(reply.content.find((b) => b.type === 'tool_use')).toMatchObject({ name: FOREIGN });
  });

  it('comes back canonical from a stream too', async () => {
    server.enqueue(...replyCalling('tool-call-stream', DERIVED));
    const events: StreamEvent[] = [];
    for await (const event of adapter().stream(ask(history(), true))) events.push(event);
    expect(events.find((e) => e.type === 'tool.use_start')).toMatchObject({ tool_name: FOREIGN });
    const done = events.find((e) => e.type === 'message.complete');
    expect(done?.type === 'message.complete' && done.final_content.at(-1)).toMatchObject({
      type: 'tool_use',
      name: FOREIGN,
    });
    expect(sentNames()).toEqual([DERIVED]);
  });
});

describe('OpenRouter: a history the encoder leaves empty', () => {
  it('a blank user message and a reasoning-only turn are refused, nothing sent', async () => {
    const error = await adapter()
      .complete(
        ask([
          user(text(' ')),
          assistant([{ type: 'thinking', text: 'Only reasoning.', signature: 'sig-1' }], CLAUDE),
        ]),
      )
      .then(
        () => null,
        (e: unknown) => e as AdapterError,
      );
    expect(server.requests, 'messages: [] must never reach the API').toHaveLength(0);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error?.message).toMatch(
      /^nothing to send to openrouter:anthropic\/claude-sonnet-4\.6: /,
    );
    expect(error?.retryable).toBe(false);
  });
});

describe('OpenRouterAdapter.setupProblem', () => {
  it('names api_key and OPENROUTER_API_KEY when neither holds a key', () => {
    vi.stubEnv('OPENROUTER_API_KEY', undefined);
    const problem = new OpenRouterAdapter().setupProblem();
    expect(problem).toContain('api_key');
    expect(problem).toContain('OPENROUTER_API_KEY');
  });

  it('is null with a key in the config or the environment', () => {
    vi.stubEnv('OPENROUTER_API_KEY', undefined);
    expect(new OpenRouterAdapter({ api_key: KEY }).setupProblem()).toBeNull();
    vi.stubEnv('OPENROUTER_API_KEY', KEY);
    expect(new OpenRouterAdapter().setupProblem()).toBeNull();
  });

  it('makes a models.yaml entry not_configured with that reason when no key is set', () => {
    const yaml = `
adapters:
  openrouter: { type: openrouter }
models:
  openrouter:anthropic/claude-sonnet-4.6: { adapter: openrouter, wire_name: anthropic/claude-sonnet-4.6 }
`;
    const registry = () =>
      ModelRegistry.fromYaml(yaml, {
        factories: { openrouter: (config, runtime) => new OpenRouterAdapter(config, runtime) },
        env: {},
      });
    vi.stubEnv('OPENROUTER_API_KEY', undefined);
    const model = registry().get(CLAUDE);
    expect(model.status).toBe('not_configured');
    expect(model.not_configured_reason).toContain('OPENROUTER_API_KEY');
    vi.stubEnv('OPENROUTER_API_KEY', KEY);
    expect(registry().get(CLAUDE).status).toBe('ready');
    expect(JSON.stringify(registry().models())).not.toContain(KEY);
  });
});
