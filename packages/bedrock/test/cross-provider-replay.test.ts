import { replayKit } from '@yourtool/conformance';
import { createMemoryLogger, type MemoryLogger, type Message, ToolIdMap } from '@yourtool/core';
import { wireToolName } from '@yourtool/core/adapter';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BedrockAdapter } from '../src/index.js';
import { type AwsSandbox, awsSandbox } from './aws-env.js';
import { type BedrockServer, startBedrockServer } from './bedrock-server.js';
import {
  bedrockViolations,
  FAMILY_FACTS,
  type ReplayTarget,
  type WireBlock,
  type WireBody,
} from './cross-provider-replay-rules.js';
import {
  BEDROCK_CLAUDE_SECRETS,
  CLAUDE_BEDROCK,
  FOREIGN_CALL_IDS,
  MCP_TOOL,
  mixedHistory,
  READ_FILE,
  SECRETS,
  SESSION,
} from './replay-histories.js';
import { converseReply } from './transport-context.js';

/**
 * Cross-provider replay to Bedrock targets (issue 42, "Done means"): one history of Claude on
 * Anthropic (signed and redacted thinking), GPT-5 Responses (encrypted reasoning), Gemini 3
 * (thought signatures, a dotted MCP tool name), Claude on Bedrock and DeepSeek reasoner turns,
 * with a user message right after a tool result, a tool result holding an image and one with
 * `is_error`, replayed through the real SDK (h2c and HTTP/1.1) to a loopback Bedrock server, to
 * Claude, Mistral, Llama and Nova on Bedrock. Each request body is checked against Bedrock's
 * rules (./cross-provider-replay-rules.ts).
 */

const API_KEY = 'ABSKQmVkcm9ja0FQSUtleS1yZXBsYXktdGVzdC0wMDAwMDAwMDA=';
const TARGETS = [
  { label: 'Claude', model: CLAUDE_BEDROCK, http: '2', family: FAMILY_FACTS.claude },
  {
    label: 'Mistral',
    model: 'bedrock:mistral.mistral-large-2407-v1:0',
    http: '1.1',
    family: FAMILY_FACTS.mistral,
  },
  {
    label: 'Llama',
    model: 'bedrock:meta.llama4-maverick-17b-instruct-v1:0',
    http: '2',
    family: FAMILY_FACTS.llama,
  },
  {
    label: 'Nova',
    model: 'bedrock:us.amazon.nova-pro-v1:0',
    http: '1.1',
    family: FAMILY_FACTS.nova,
  },
] as const;

let server: BedrockServer;
let sandbox: AwsSandbox;
let logger: MemoryLogger;
beforeAll(async () => {
  server = await startBedrockServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.reset();
  sandbox = awsSandbox();
  logger = createMemoryLogger();
});
afterEach(() => sandbox.dispose());

const kit = replayKit(SESSION, { tools: [READ_FILE] });

/** An adapter on the loopback server over `http`, logging to `logger`. */
const adapterOver = (http: '2' | '1.1') =>
  new BedrockAdapter(
    {
      api_key: API_KEY,
      base_url: http === '2' ? server.h2Url : server.http1Url,
      max_retries: 0,
      options: { region: 'us-east-1', http_version: http, prompt_caching: true },
    },
    { logger },
  );

/** The last request body the server received, parsed. */
function lastBody(): WireBody {
  const seen = server.requests.at(-1);
  if (!seen) throw new Error('no request reached the server');
  return JSON.parse(seen.body) as WireBody;
}

/** Builds the history (its Claude-on-Bedrock turn through the real adapter) and the map. */
async function history(): Promise<{ messages: Message[]; map: ToolIdMap }> {
  const map = new ToolIdMap();
  const maker = adapterOver('2');
  const messages = await mixedHistory(server, kit, map, maker);
  await maker.close();
  return { messages, map };
}

/** Replays the history to `model` (a text reply scripted); the body that went out. */
async function replay(target: (typeof TARGETS)[number]): Promise<WireBody> {
  const { messages, map } = await history();
  server.reset();
  logger = createMemoryLogger();
  const adapter = adapterOver(target.http);
  server.enqueue({ json: converseReply('In short: a small MIT project that ships Friday.') });
  const reply = await kit.call(adapter, target.model, messages, {
    toolIdMap: map,
    providerOptions: { bedrock: { thinking: 'adaptive' } },
  });
  await adapter.close();
  expect(reply.content).toEqual([
    { type: 'text', text: 'In short: a small MIT project that ships Friday.' },
  ]);
  expect(server.requests.at(-1)?.httpVersion).toBe(target.http === '2' ? '2.0' : '1.1');
  return lastBody();
}

const blocks = (body: WireBody): WireBlock[] =>
  (body.messages ?? []).flatMap((m) => m.content ?? []);
const warned = (event: string) => logger.warnings().filter((w) => w.obj.event === event);

/** What every target must get: the history's calls under Converse names and its results. */
function expectToolsCarried(body: WireBody): void {
  const uses = blocks(body).flatMap((b) => (b.toolUse ? [b.toolUse] : []));
  expect(uses.map((u) => u.name)).toEqual([
    'read_file',
    'read_file',
    wireToolName(MCP_TOOL),
    'read_file',
    'read_file',
  ]);
  const results = blocks(body).flatMap((b) => (b.toolResult ? [b.toolResult] : []));
  expect(results.map((r) => r.toolUseId)).toEqual(uses.map((u) => u.toolUseId));
  // the Gemini search failed: its result goes as an error, the others do not
  expect(results.map((r) => r.status ?? 'success')).toEqual([
    'success',
    'success',
    'error',
    'success',
    'success',
  ]);
  const json = JSON.stringify(body);
  for (const id of FOREIGN_CALL_IDS) expect(json).not.toContain(id);
  // the user's turn right after Claude's tool result shares a user turn with that result
  const third = body.messages?.[2]?.content ?? [];
  expect(third.map((b) => Object.keys(b)[0])).toEqual(
    expect.arrayContaining(['toolResult', 'text']),
  );
}

/** No reasoning of another model reaches the target (its own may, for Claude). */
function expectOnlyOwnReasoning(body: WireBody, own: readonly string[]): void {
  const json = JSON.stringify(body);
  for (const [name, secret] of Object.entries(SECRETS)) {
    if (own.includes(secret)) expect(json, `${name} goes back to its model`).toContain(secret);
    else expect(json, `${name} must not reach this model`).not.toContain(secret);
  }
}

describe.each(TARGETS)(
  'replayed to $label on Bedrock ($model, HTTP/$http)',
  (target) => {
    const family = target.family;
    const own = family.reasoningBack ? BEDROCK_CLAUDE_SECRETS : [];
    const rules: ReplayTarget = { family, ownReasoning: own };

    it('goes out as a request Bedrock takes, with the tools, results and reasoning it may get', async () => {
      const body = await replay(target);
      expect(bedrockViolations(body, rules), JSON.stringify(body)).toEqual([]);
      expectToolsCarried(body);
      expectOnlyOwnReasoning(body, own);
      expect(body.messages?.at(-1)?.role).toBe('user');
      expect(warned('tool_name_mapped').map((w) => w.obj.tool_name)).toEqual([MCP_TOOL]);
    });
  },
  30_000,
);

describe('per-target specifics', () => {
  it('Claude gets its own signed reasoning byte-identical and its redacted reasoning as bytes', async () => {
    const body = await replay(TARGETS[0]);
    const reasoning = blocks(body).flatMap((b) => (b.reasoningContent ? [b.reasoningContent] : []));
    expect(reasoning).toEqual([
      {
        reasoningText: { text: SECRETS.bedrockThinking, signature: SECRETS.bedrockSignature },
      },
      { redactedContent: SECRETS.bedrockRedacted },
    ]);
    // its image went as PNG bytes inside the tool result
    const images = blocks(body).flatMap((b) =>
      (b.toolResult?.content ?? []).flatMap((c) => (c.image ? [c.image.format] : [])),
    );
    expect(images).toEqual(['png']);
    const points = JSON.stringify(body).match(/"cachePoint"/g) ?? [];
    expect(points.length).toBeGreaterThan(0);
    expect(points.length).toBeLessThanOrEqual(4);
  });

  it('Mistral gets nine-character call ids, distinct, no reasoning and no cache points', async () => {
    const body = await replay(TARGETS[1]);
    const ids = blocks(body).flatMap((b) => (b.toolUse ? [b.toolUse.toolUseId] : []));
    expect(ids).toHaveLength(5);
    for (const id of ids) expect(id).toMatch(/^[a-zA-Z0-9]{9}$/);
    expect(new Set(ids).size).toBe(5);
    expect(JSON.stringify(body)).not.toMatch(/reasoningContent|cachePoint/);
    expect(warned('block_dropped').map((w) => w.obj.block_type)).not.toContain('tool_use');
  });

  it('Nova gets cache points in its messages but none among its tools', async () => {
    const body = await replay(TARGETS[3]);
    expect(JSON.stringify(body.toolConfig)).not.toContain('cachePoint');
    expect(JSON.stringify(body.messages)).toContain('cachePoint');
    expect(JSON.stringify(body)).not.toContain('reasoningContent');
  });
});
