import { AnthropicAdapter } from '@yourtool/anthropic';
import { type CallOptions, newRequestId, newSessionId, type ProviderAdapter } from '@yourtool/core';
import { GoogleAdapter } from '@yourtool/google';
import { OllamaAdapter } from '@yourtool/ollama';
import { OpenAIAdapter } from '@yourtool/openai';
import { DeepSeekAdapter, GroqAdapter, MistralAdapter } from '@yourtool/openai-compatible';
import { OpenRouterAdapter } from '@yourtool/openrouter';
import { createOtelProviders } from '@yourtool/testkit/otel';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

// Issue 38, telemetry: every built-in adapter names where it sends on its call spans
// (`server.address`, `server.port`): its SDK's default host when nothing is configured, the
// configured base URL otherwise. The transport is a fetch that fails at once, so nothing
// leaves the machine; the span is recorded all the same.

const ENV = [
  'ANTHROPIC_BASE_URL',
  'OPENAI_BASE_URL',
  'OPENROUTER_BASE_URL',
  'GROQ_BASE_URL',
  'MISTRAL_BASE_URL',
  'DEEPSEEK_BASE_URL',
  'OLLAMA_HOST',
  'GOOGLE_GEMINI_BASE_URL',
  'GOOGLE_GENAI_USE_VERTEXAI',
] as const;
let saved: Record<string, string | undefined> = {};
beforeEach(() => {
  saved = Object.fromEntries(ENV.map((name) => [name, process.env[name]]));
  for (const name of ENV) delete process.env[name];
});
afterEach(() => {
  for (const name of ENV) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

const offline = (async () => {
  throw new TypeError('fetch failed: offline test');
}) as typeof fetch;

type Make = (base_url?: string) => ProviderAdapter;
const key = 'sk-test-server-address-000000';
const runtime = { fetch: offline };
const adapters: Array<[string, string, Make, string, number]> = [
  [
    'anthropic',
    'anthropic:claude-sonnet-4-6',
    (base_url) => new AnthropicAdapter({ api_key: key, base_url, max_retries: 0 }, runtime),
    'api.anthropic.com',
    443,
  ],
  [
    'openai',
    'openai:gpt-5',
    (base_url) => new OpenAIAdapter({ api_key: key, base_url, max_retries: 0 }, runtime),
    'api.openai.com',
    443,
  ],
  [
    'openai (responses)',
    'openai:gpt-5',
    (base_url) =>
      new OpenAIAdapter(
        { api_key: key, base_url, max_retries: 0, options: { api: 'responses' } },
        runtime,
      ),
    'api.openai.com',
    443,
  ],
  [
    'openrouter',
    'openrouter:openai/gpt-5',
    (base_url) => new OpenRouterAdapter({ api_key: key, base_url, max_retries: 0 }, runtime),
    'openrouter.ai',
    443,
  ],
  [
    'groq',
    'groq:llama-3.3-70b-versatile',
    (base_url) => new GroqAdapter({ api_key: key, base_url, max_retries: 0 }, runtime),
    'api.groq.com',
    443,
  ],
  [
    'mistral',
    'mistral:mistral-large-latest',
    (base_url) => new MistralAdapter({ api_key: key, base_url, max_retries: 0 }, runtime),
    'api.mistral.ai',
    443,
  ],
  [
    'deepseek',
    'deepseek:deepseek-chat',
    (base_url) => new DeepSeekAdapter({ api_key: key, base_url, max_retries: 0 }, runtime),
    'api.deepseek.com',
    443,
  ],
  [
    'ollama',
    'ollama:qwen3:8b',
    (base_url) => new OllamaAdapter({ base_url, max_retries: 0 }, runtime),
    '127.0.0.1',
    11434,
  ],
  [
    'google',
    'google:gemini-2.5-flash',
    (base_url) => new GoogleAdapter({ api_key: key, base_url, max_retries: 0 }, runtime),
    'generativelanguage.googleapis.com',
    443,
  ],
];

async function serverOf(adapter: ProviderAdapter, model: string) {
  const otel = createOtelProviders();
  const options: CallOptions = { telemetry: { tracerProvider: otel.tracerProvider } };
  const request = {
    request_id: newRequestId(),
    model,
    max_output_tokens: 64,
    messages: [
      {
        id: `msg_${'0'.repeat(26)}`,
        session_id: newSessionId(),
        role: 'user' as const,
        content: [{ type: 'text' as const, text: 'hi' }],
        metadata: { status: 'complete' as const },
        created_at: new Date().toISOString(),
        schema_version: 1,
      },
    ],
  };
  await expect(adapter.complete(request, options)).rejects.toThrow();
  await adapter.close();
  const spans = otel.spans();
  await otel.shutdown();
  expect(spans).toHaveLength(1);
  const attributes = spans[0]?.attributes ?? {};
  return [attributes['server.address'], attributes['server.port']];
}

describe('server.address and server.port of every built-in adapter', () => {
  it.each(adapters)('%s: the SDK default host', async (_name, model, make, host, port) => {
    expect(await serverOf(make(), model)).toEqual([host, port]);
  });

  it.each(adapters)('%s: the configured base URL', async (_name, model, make) => {
    expect(await serverOf(make('http://10.1.2.3:8080/v1'), model)).toEqual(['10.1.2.3', 8080]);
  });
});
