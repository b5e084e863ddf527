import { AnthropicAdapter } from '@yourtool/anthropic';
import {
  type AdapterError,
  type CanonicalRequestInput,
  createMessage,
  newRequestId,
  newSessionId,
  newToolUseId,
  type ProviderAdapter,
  type StreamEvent,
} from '@yourtool/core';
import { OpenAICompatibleAdapter } from '@yourtool/openai-compatible';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type ScriptedProvider,
  stall,
  startScriptedProvider,
  text,
  toolCall,
  usage,
} from '../src/index.js';
import { ADAPTERS, READ_FILE } from './adapters.js';

let provider: ScriptedProvider;
const adapters = new Map<string, ProviderAdapter>();
beforeAll(async () => {
  provider = await startScriptedProvider({ secrets: ['tenant-secret-value-42'] });
  for (const c of ADAPTERS) adapters.set(c.name, c.create(provider.url));
});
afterAll(async () => {
  await Promise.all([...adapters.values()].map((a) => a.close()));
  await provider.close();
});
afterEach(() => provider.clear());

/** A tool loop's history: the model called read_file, the result came back. */
function toolLoopRequest(model: string): CanonicalRequestInput {
  const session_id = newSessionId();
  const id = newToolUseId();
  return {
    request_id: newRequestId(),
    model,
    max_output_tokens: 512,
    system_prompt: 'Be brief.',
    tools: [READ_FILE],
    messages: [
      createMessage({ session_id, role: 'user', content: [{ type: 'text', text: 'Read it.' }] }),
      createMessage({
        session_id,
        role: 'assistant',
        content: [
          { type: 'text', text: "I'll read it." },
          { type: 'tool_use', id, name: 'read_file', input: { path: 'README.md' } },
        ],
        metadata: { model, provider: model.split(':')[0] ?? model },
      }),
      createMessage({
        session_id,
        role: 'tool',
        content: [
          {
            type: 'tool_result',
            tool_use_id: id,
            content: [{ type: 'text', text: '# Title' }],
            is_error: false,
          },
        ],
      }),
    ],
  };
}

describe('what each request carried', () => {
  it.each(ADAPTERS)('$name: the same provider-independent view of a tool loop', async (c) => {
    provider.reply(text('It has a title.'));
    const reply = await adapters.get(c.name)?.complete(toolLoopRequest(c.model));
    expect(reply?.content).toEqual([{ type: 'text', text: 'It has a title.' }]);
    const [recorded] = await provider.waitForRequests(1);
    expect(recorded).toMatchObject({
      index: 0,
      method: 'POST',
      format: c.format,
      stream: false,
      model: c.model.slice(c.model.indexOf(':') + 1),
      system: 'Be brief.',
      tools: ['read_file'],
      lastUserText: 'Read it.',
      unscripted: false,
      aborted: false,
      reply: { kind: 'message' },
    });
    expect(recorded?.messages).toEqual([
      { role: 'user', text: 'Read it.', toolCalls: [] },
      { role: 'assistant', text: "I'll read it.", toolCalls: ['read_file'] },
      { role: 'tool', text: expect.stringContaining('# Title'), toolCalls: [] },
    ]);
  });

  it('credentials are redacted: by header name, by value, and configured secrets', async () => {
    const adapter = new AnthropicAdapter({
      api_key: 'sk-ant-recorder-0000000000',
      base_url: provider.url,
      max_retries: 0,
      extra_headers: { 'x-tenant': 'tenant-secret-value-42', 'x-trace': 'trace-value-7777777' },
    });
    provider.reply(text('ok'));
    await adapter.complete(toolLoopRequest('anthropic:claude-sonnet-4-6'));
    await adapter.close();
    const headers = provider.requests[0]?.headers ?? {};
    expect(headers['x-api-key'] ?? headers.authorization).toBe('[REDACTED]');
    expect(headers['x-tenant']).toBe('[REDACTED]');
    expect(headers['x-trace']).toBe('trace-value-7777777');
    provider.addSecret('trace-value-7777777');
    expect(provider.requests[0]?.headers['x-trace']).toBe('[REDACTED]');
    expect(JSON.stringify(provider.requests)).not.toContain('sk-ant-recorder');
  });

  it('a reply is rendered in the format of the request that consumes it', async () => {
    provider.reply(text('first')).reply(toolCall('read_file', { path: 'a' }));
    const ollama = adapters.get('ollama');
    const anthropic = adapters.get('anthropic');
    const one = await ollama?.complete(toolLoopRequest('ollama:qwen3:8b'));
    const two = await anthropic?.complete(toolLoopRequest('anthropic:claude-sonnet-4-6'));
    expect(one?.content).toEqual([{ type: 'text', text: 'first' }]);
    expect(two?.content).toMatchObject([
      { type: 'tool_use', name: 'read_file', input: { path: 'a' } },
    ]);
    expect(provider.requests.map((r) => r.format)).toEqual(['ollama', 'anthropic']);
    expect(provider.pending()).toBe(0);
  });

  it('an unscripted request gets a 500 saying nothing was scripted, and is recorded', async () => {
    const caught = (await adapters
      .get('openai (chat completions)')
      ?.complete(toolLoopRequest('openai:gpt-5'))
      .catch((e: unknown) => e)) as AdapterError;
    expect(caught.error_class).toBe('server_error');
    expect(caught.provider_status).toBe(500);
    expect(caught.provider_message).toContain('nothing was scripted for request #0');
    expect(caught.provider_message).toContain('provider.reply(');
    expect(provider.requests[0]).toMatchObject({ unscripted: true, path: '/v1/chat/completions' });
  });

  it('a path no format serves is a recorded 404 that consumes nothing', async () => {
    provider.reply(text('kept'));
    const response = await fetch(`${provider.url}/v1/embeddings`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(404);
    expect(await response.text()).toContain('no wire format is served at POST /v1/embeddings');
    expect(provider.requests[0]).toMatchObject({ format: null, path: '/v1/embeddings' });
    expect(provider.pending()).toBe(1);
  });

  it('waitForRequests is bounded', async () => {
    await expect(provider.waitForRequests(1, 50)).rejects.toThrow(
      'expected 1 request(s) within 50 ms, got 0',
    );
  });

  it("Ollama's /api/show and /api/tags answer from the options, outside the script", async () => {
    const local = await startScriptedProvider({
      ollamaModels: { 'tiny:1b': { capabilities: ['completion'], context_length: 2048 } },
    });
    try {
      const tags = (await (await fetch(`${local.url}/api/tags`)).json()) as {
        models: Array<{ name: string }>;
      };
      expect(tags.models.map((m) => m.name)).toEqual(['tiny:1b']);
      const show = await fetch(`${local.url}/api/show`, {
        method: 'POST',
        body: JSON.stringify({ model: 'tiny:1b' }),
      });
      expect(await show.json()).toMatchObject({ capabilities: ['completion'] });
      expect(local.requests).toEqual([]);
    } finally {
      await local.close();
    }
  });
});

describe('wire details', () => {
  it('Chat Completions without include_usage gets usage on the finishing chunk', async () => {
    const local = await startScriptedProvider();
    const adapter = new OpenAICompatibleAdapter({
      base_url: `${local.url}/v1`,
      options: { provider: 'local', requires_api_key: false, include_usage: false },
    });
    local.reply(text('counted'), usage({ input_tokens: 9, output_tokens: 3 }));
    const events: StreamEvent[] = [];
    for await (const event of adapter.stream({
      ...toolLoopRequest('local:qwen3-8b'),
      tools: [],
      stream: true,
    })) {
      events.push(event);
    }
    expect(local.requests[0]?.body).not.toHaveProperty('stream_options');
    expect(events.at(-1)).toMatchObject({ usage: { input_tokens: 9, output_tokens: 3 } });
    await adapter.close();
    await local.close();
  });
});

describe('close', () => {
  it('destroys stalled connections, so a call without deadlines ends', async () => {
    const local = await startScriptedProvider();
    const adapter = new AnthropicAdapter({
      api_key: 'sk-ant-x-000000000000',
      base_url: local.url,
      max_retries: 0,
    });
    local.reply(stall(text('Hel')));
    const events: string[] = [];
    const run = (async () => {
      for await (const event of adapter.stream({
        ...toolLoopRequest('anthropic:claude-sonnet-4-6'),
        stream: true,
      })) {
        events.push(event.type);
      }
    })().catch((e: unknown) => e);
    await expect.poll(() => events.includes('text.delta')).toBe(true);
    const started = Date.now();
    await local.close();
    await local.close();
    const error = (await run) as AdapterError;
    expect(error.error_class).toBe('network');
    expect(Date.now() - started).toBeLessThan(5000);
    await adapter.close();
  });

  it('a stall is released after stallLimitMs', async () => {
    const local = await startScriptedProvider({ stallLimitMs: 100 });
    local.reply(stall());
    const response = await fetch(`${local.url}/v1/messages`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm', stream: true, messages: [] }),
    });
    await expect(response.text()).rejects.toThrow();
    await local.close();
  });
});
