import type { ContentBlock as ConverseBlock } from '@aws-sdk/client-bedrock-runtime';
import {
  type AdapterCapabilities,
  type CanonicalRequest,
  type ContentBlock,
  createMemoryLogger,
  createMessage,
  InvalidRequestError,
  type Message,
  newRequestId,
  newSessionId,
  ToolIdMap,
} from '@yourtool/core';
import { assistantTestMetadata, PNG_1PX_BASE64 as PNG } from '@yourtool/testkit';
import { describe, expect, it } from 'vitest';
import {
  CONTINUATION_TEXT,
  EMPTY_TOOL_RESULT_TEXT,
  type ToBedrockContext,
  toBedrockRequest,
} from '../src/codec/index.js';
import { familyOf } from '../src/families.js';

const CLAUDE = 'bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const OTHER_CLAUDE = 'bedrock:global.anthropic.claude-haiku-4-5-20251001-v1:0';
const MISTRAL = 'bedrock:mistral.mistral-large-2407-v1:0';
const LLAMA = 'bedrock:us.meta.llama3-3-70b-instruct-v1:0';
const NOVA = 'bedrock:us.amazon.nova-pro-v1:0';
const NOVA2 = 'bedrock:us.amazon.nova-2-lite-v1:0';
const GPT_OSS = 'bedrock:openai.gpt-oss-120b-1:0';
const session_id = newSessionId();

const CAPS: AdapterCapabilities = {
  supports_images: true,
  supports_thinking: true,
  supports_tools: true,
  supports_system_prompt: true,
  supports_structured_output: true,
  supports_streaming: true,
  supports_streaming_tool_calls: true,
  supports_parallel_tool_calls: true,
  supports_prompt_caching: true,
  max_context_tokens: 200_000,
  max_output_tokens: 64_000,
  accepted_image_media_types: [],
};

const text = (t: string): ContentBlock => ({ type: 'text', text: t });
const user = (...content: ContentBlock[]) => createMessage({ session_id, role: 'user', content });
const assistant = (content: ContentBlock[], model = CLAUDE) =>
  createMessage({ session_id, role: 'assistant', content, metadata: assistantTestMetadata(model) });
const toolResult = (id: string, content: ContentBlock[], is_error = false) =>
  createMessage({
    session_id,
    role: 'tool',
    content: [{ type: 'tool_result', tool_use_id: id, content: content as never, is_error }],
    metadata: { parent_tool_use_id: id },
  });
const toolUse = (id: string, name = 'read_file', input: Record<string, unknown> = { path: 'a' }) =>
  ({ type: 'tool_use', id, name, input }) as const;

function req(model: string, messages: Message[], extra: Partial<CanonicalRequest> = {}) {
  return {
    request_id: newRequestId(),
    model,
    messages,
    tools: [],
    stop_sequences: [],
    max_output_tokens: 4096,
    stream: false,
    ...extra,
  } satisfies CanonicalRequest;
}

function encode(request: CanonicalRequest, extra: Partial<ToBedrockContext> = {}) {
  const logger = createMemoryLogger();
  const toolIdMap = extra.toolIdMap ?? new ToolIdMap();
  const wireName = request.model.slice('bedrock:'.length);
  const encoded = toBedrockRequest(request, {
    toolIdMap,
    capabilities: CAPS,
    logger,
    family: familyOf(wireName),
    ...extra,
  });
  return { ...encoded, logger, toolIdMap };
}

/** A tool definition with the defaults a parsed request carries. */
const tool = (name: string, description: string, input_schema: Record<string, unknown>) => ({
  name,
  description,
  input_schema,
  side_effects: 'read' as const,
  requires_workspace: false,
});
const readFile = tool('read_file', 'Read a file', {
  type: 'object',
  properties: { path: { type: 'string' } },
});

/** Every block of every turn, flattened. */
const blocks = (r: { messages?: { content?: ConverseBlock[] }[] }) =>
  (r.messages ?? []).flatMap((m) => m.content ?? []);
const countCachePoints = (r: ReturnType<typeof encode>['request']) =>
  (r.system ?? []).filter((b) => b.cachePoint).length +
  (r.toolConfig?.tools ?? []).filter((t) => t.cachePoint).length +
  blocks(r).filter((b) => b.cachePoint).length;

describe('Bedrock request encoding: Claude', () => {
  it('sends system, messages, tools, inference config and cache points after system, tools and the last user turn', () => {
    const { request } = encode(
      req(CLAUDE, [user(text('hi'))], {
        system_prompt: 'Be brief.',
        tools: [readFile],
        temperature: 0.3,
        stop_sequences: ['END'],
      }),
    );
    expect(request.modelId).toBe('us.anthropic.claude-sonnet-4-5-20250929-v1:0');
    expect(request.system).toEqual([{ text: 'Be brief.' }, { cachePoint: { type: 'default' } }]);
    expect(request.messages).toEqual([
      { role: 'user', content: [{ text: 'hi' }, { cachePoint: { type: 'default' } }] },
    ]);
    expect(request.toolConfig?.tools).toEqual([
      {
        toolSpec: {
          name: 'read_file',
          description: 'Read a file',
          inputSchema: { json: readFile.input_schema },
        },
      },
      { cachePoint: { type: 'default' } },
    ]);
    expect(request.inferenceConfig).toEqual({
      maxTokens: 4096,
      temperature: 0.3,
      stopSequences: ['END'],
    });
    expect(request.additionalModelRequestFields).toBeUndefined();
  });

  it('places at most 4 cache points, never right after reasoning, and none when caching is off', () => {
    const signed = { type: 'thinking', text: 'hmm', signature: 'sig' } as const;
    const history = [
      user(text('one')),
      assistant([text('a')]),
      user(text('two')),
      assistant([signed, text('b')]),
      user(text('three')),
    ];
    const on = encode(req(CLAUDE, history, { system_prompt: 's', tools: [readFile] })).request;
    expect(countCachePoints(on)).toBe(4);
    const turns = on.messages ?? [];
    expect(turns[4]?.content?.at(-1)).toEqual({ cachePoint: { type: 'default' } });
    expect(turns[2]?.content?.at(-1)).toEqual({ cachePoint: { type: 'default' } });
    expect(turns[0]?.content?.at(-1)).toEqual({ text: 'one' });
    for (const turn of turns) {
      const content = turn.content ?? [];
      content.forEach((b, i) => {
        if (b.cachePoint) expect(content[i - 1]?.reasoningContent).toBeUndefined();
      });
    }
    const off = encode(req(CLAUDE, history, { system_prompt: 's', tools: [readFile] }), {
      options: { promptCaching: false },
    }).request;
    expect(countCachePoints(off)).toBe(0);
  });

  it('switches thinking on with a budget (temperature then left out) or adaptive, merges per-call fields last', () => {
    const budget = encode(req(CLAUDE, [user(text('hi'))], { temperature: 0.5 }), {
      options: { thinking: { budget_tokens: 2048 }, additionalModelRequestFields: { top_k: 5 } },
    });
    expect(budget.request.additionalModelRequestFields).toEqual({
      thinking: { type: 'enabled', budget_tokens: 2048 },
      top_k: 5,
    });
    expect(budget.request.inferenceConfig?.temperature).toBeUndefined();
    expect(budget.logger.warnings().map((w) => w.obj.event)).toContain('parameter_dropped');
    const adaptive = encode(req(CLAUDE, [user(text('hi'))]), {
      options: {
        thinking: 'adaptive',
        additionalModelRequestFields: { thinking: { type: 'enabled', budget_tokens: 1500 } },
      },
    });
    expect(adaptive.request.additionalModelRequestFields).toEqual({
      thinking: { type: 'enabled', budget_tokens: 1500 },
    });
    const small = encode(req(CLAUDE, [user(text('hi'))], { max_output_tokens: 500 }), {
      options: { thinking: { budget_tokens: 2048 } },
    });
    expect(small.request.additionalModelRequestFields).toBeUndefined();
    expect(small.logger.warnings().map((w) => w.obj.event)).toContain('thinking_skipped');
  });

  it('sends structured output as outputConfig and the guardrail as guardrailConfig', () => {
    const schema = { type: 'object', properties: { n: { type: 'number' } } };
    const { request } = encode(req(CLAUDE, [user(text('hi'))], { output_schema: schema }), {
      options: { guardrail: { id: 'gr-1', version: 'DRAFT' } },
    });
    expect(request.outputConfig?.textFormat?.type).toBe('json_schema');
    const structure = request.outputConfig?.textFormat?.structure;
    expect(JSON.parse(structure?.jsonSchema?.schema ?? 'null')).toEqual(schema);
    expect(request.guardrailConfig).toEqual({
      guardrailIdentifier: 'gr-1',
      guardrailVersion: 'DRAFT',
    });
    const llama = encode(req(LLAMA, [user(text('hi'))], { output_schema: schema }));
    expect(llama.request.outputConfig).toBeUndefined();
    expect(llama.logger.warnings()[0]?.obj.parameter).toBe('output_schema');
  });
});

describe('Bedrock request encoding: replay of reasoning', () => {
  const signed = { type: 'thinking', text: '  exact\n text ', signature: 'c2lnbmVk' } as const;
  const redacted = {
    type: 'redacted_thinking',
    data: Buffer.from([1, 2, 250]).toString('base64'),
  } as const;
  const history = (model: string) => [
    user(text('q')),
    assistant([signed, redacted, text('answer')], model),
    user(text('next')),
  ];

  it('sends signed reasoning byte-identical and redacted reasoning as bytes to the same model', () => {
    const { request, logger } = encode(req(CLAUDE, history(CLAUDE)));
    const turn = request.messages?.[1]?.content ?? [];
    expect(turn[0]).toEqual({
      reasoningContent: { reasoningText: { text: '  exact\n text ', signature: 'c2lnbmVk' } },
    });
    const bytes = turn[1]?.reasoningContent?.redactedContent;
    expect(bytes).toBeInstanceOf(Uint8Array);
    expect([...(bytes ?? [])]).toEqual([1, 2, 250]);
    expect(logger.warnings()).toEqual([]);
  });

  it('drops reasoning made by another model, with a WARN for each block', () => {
    const { request, logger } = encode(req(CLAUDE, history(OTHER_CLAUDE)));
    expect(blocks(request).some((b) => b.reasoningContent)).toBe(false);
    const dropped = logger.warnings().filter((w) => w.obj.event === 'block_dropped');
    expect(dropped.map((w) => w.obj.block_type).sort()).toEqual(['redacted_thinking', 'thinking']);
  });

  it('never sends unsigned reasoning, even to the same model (lossy WARN)', () => {
    const unsigned = assistant([{ type: 'thinking', text: 'plain' }, text('a')]);
    const { request, logger } = encode(req(CLAUDE, [user(text('q')), unsigned, user(text('n'))]));
    expect(request.messages?.[1]?.content).toEqual([{ text: 'a' }]);
    expect(logger.warnings()[0]?.obj).toMatchObject({
      event: 'block_dropped',
      block_type: 'thinking',
    });
  });
});

describe('Bedrock request encoding: tools', () => {
  it('declares the tools the history uses when the call offers none, with tool results as status error', () => {
    const history = [
      user(text('read a')),
      assistant([toolUse('tu_01JZ0000000000000000000001', 'fs.read')]),
      toolResult('tu_01JZ0000000000000000000001', [text('boom')], true),
      user(text('and?')),
    ];
    const { request, logger } = encode(req(CLAUDE, history));
    const spec = request.toolConfig?.tools?.[0]?.toolSpec;
    expect(spec?.name).toMatch(/^fs_read_[0-9a-f]{8}$/);
    expect(spec?.description).toBe(spec?.name);
    expect(spec?.inputSchema?.json).toEqual({ type: 'object', properties: {} });
    const result = request.messages?.[2]?.content?.[0]?.toolResult;
    expect(result).toEqual({
      toolUseId: 'tu_01JZ0000000000000000000001',
      content: [{ text: 'boom' }],
      status: 'error',
    });
    expect(logger.warnings().map((w) => w.obj.event)).toContain('tool_name_mapped');
  });

  it('falls back to the name for an empty description, adds a missing root type and refuses a non-object root', () => {
    const bare = tool('ping', '  ', { properties: {} });
    const { request } = encode(req(CLAUDE, [user(text('hi'))], { tools: [bare] }));
    expect(request.toolConfig?.tools?.[0]?.toolSpec).toEqual({
      name: 'ping',
      description: 'ping',
      inputSchema: { json: { properties: {}, type: 'object' } },
    });
    const list = tool('list', 'd', { type: 'array' });
    expect(() => encode(req(CLAUDE, [user(text('hi'))], { tools: [list] }))).toThrow(
      /tools\[name=list\]\.input_schema\.type/,
    );
    expect(() => encode(req(CLAUDE, [user(text('hi'))], { tools: [list] }))).toThrow(
      InvalidRequestError,
    );
  });

  it('gives Mistral nine-character ids, unique across a long history, and the same id each time', () => {
    const ids = Array.from(
      { length: 60 },
      (_, i) => `tu_01JZ00000000000000000000${String(i).padStart(2, '0')}`,
    );
    const history: Message[] = [user(text('go'))];
    for (const id of ids)
      history.push(assistant([toolUse(id)], MISTRAL), toolResult(id, [text('ok')]));
    const toolIdMap = new ToolIdMap();
    const first = encode(req(MISTRAL, history), { toolIdMap }).request;
    const uses = blocks(first).flatMap((b) => (b.toolUse ? [b.toolUse.toolUseId] : []));
    const results = blocks(first).flatMap((b) => (b.toolResult ? [b.toolResult.toolUseId] : []));
    expect(uses).toHaveLength(60);
    for (const id of uses) expect(id).toMatch(/^[a-zA-Z0-9]{9}$/);
    expect(new Set(uses).size).toBe(60);
    expect(results).toEqual(uses);
    const again = encode(req(MISTRAL, history), { toolIdMap }).request;
    expect(blocks(again).flatMap((b) => (b.toolUse ? [b.toolUse.toolUseId] : []))).toEqual(uses);
  });
});

describe('Bedrock request encoding: content rules', () => {
  it('leaves out blank text, sends accepted images as bytes and projects others with a WARN', () => {
    const png = {
      type: 'image',
      media_type: 'image/png',
      source: { kind: 'base64', data: PNG },
    } as const;
    const bmp = {
      type: 'image',
      media_type: 'image/bmp',
      source: { kind: 'base64', data: PNG },
    } as const;
    const url = {
      type: 'image',
      media_type: 'image/png',
      source: { kind: 'url', data: 'https://x/y.png' },
    } as const;
    const { request, logger } = encode(
      req(CLAUDE, [user(text('look'), text('   '), png, bmp, url)]),
    );
    const content = request.messages?.[0]?.content ?? [];
    expect(content[0]).toEqual({ text: 'look' });
    expect(content[1]?.image?.format).toBe('png');
    expect(Buffer.from(content[1]?.image?.source?.bytes ?? []).toString('base64')).toBe(PNG);
    expect(content.filter((b) => b.image)).toHaveLength(1);
    const dropped = logger.warnings().filter((w) => w.obj.event === 'block_dropped');
    expect(dropped.map((w) => w.obj.block_type)).toEqual(['image', 'image']);
    expect(String(dropped[0]?.obj.reason)).toContain('image/bmp');
    expect(String(dropped[1]?.obj.reason)).toMatch(/bytes only; a url image/);
  });

  it('gives a tool result left empty a text, and puts a user turn before a history that starts with the assistant', () => {
    const id = 'tu_01JZ0000000000000000000009';
    const history = [assistant([toolUse(id)]), toolResult(id, [text(' ')])];
    const { request, repairs } = encode(req(CLAUDE, history), {
      options: { promptCaching: false },
    });
    expect(request.messages?.[0]).toEqual({ role: 'user', content: [{ text: CONTINUATION_TEXT }] });
    expect(request.messages?.[2]?.content?.[0]?.toolResult?.content).toEqual([
      { text: EMPTY_TOOL_RESULT_TEXT },
    ]);
    expect(repairs.map((r) => r.kind)).toContain('turn_inserted');
  });
});

describe('Bedrock request encoding: other families', () => {
  it('Llama: no cache points, no reasoning switch (WARN), temperature kept', () => {
    const { request, logger } = encode(
      req(LLAMA, [user(text('hi'))], { system_prompt: 's', tools: [readFile], temperature: 0.2 }),
      { options: { thinking: { effort: 'high' } } },
    );
    expect(countCachePoints(request)).toBe(0);
    expect(request.additionalModelRequestFields).toBeUndefined();
    expect(request.inferenceConfig?.temperature).toBe(0.2);
    expect(logger.warnings().map((w) => w.obj.event)).toEqual(['thinking_skipped']);
  });

  it('Nova: cache points in system and messages only; reasoningConfig only on Nova 2', () => {
    const history = [user(text('one')), assistant([text('a')], NOVA), user(text('two'))];
    const nova = encode(req(NOVA, history, { system_prompt: 's', tools: [readFile] }), {
      options: { thinking: { effort: 'low' } },
    }).request;
    expect(nova.system?.at(-1)).toEqual({ cachePoint: { type: 'default' } });
    expect(nova.toolConfig?.tools?.some((t) => t.cachePoint)).toBe(false);
    expect(blocks(nova).filter((b) => b.cachePoint)).toHaveLength(2);
    expect(nova.additionalModelRequestFields).toBeUndefined();
    const nova2 = encode(req(NOVA2, [user(text('hi'))]), {
      options: { thinking: { effort: 'low' } },
    });
    expect(nova2.request.additionalModelRequestFields).toEqual({
      reasoningConfig: { type: 'enabled', maxReasoningEffort: 'low' },
    });
  });

  it('gpt-oss: reasoning_effort, flat; no reasoning replayed', () => {
    const { request } = encode(req(GPT_OSS, [user(text('hi'))]), {
      options: { thinking: { effort: 'high' } },
    });
    expect(request.additionalModelRequestFields).toEqual({ reasoning_effort: 'high' });
    const signed = { type: 'thinking', text: 't', signature: 's' } as const;
    const replay = encode(
      req(GPT_OSS, [user(text('q')), assistant([signed, text('a')], GPT_OSS), user(text('n'))]),
    );
    expect(blocks(replay.request).some((b) => b.reasoningContent)).toBe(false);
  });
});
