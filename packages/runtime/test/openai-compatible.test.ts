import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  type LoopbackServer,
  loadFixtureDirectory,
  startLoopbackServer,
} from '@yourtool/conformance';
import { validateHistory } from '@yourtool/core';
import { OpenAICompatibleAdapter } from '@yourtool/openai-compatible';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRuntime, KNOWN_ADAPTER_PACKAGES } from '../src/index.js';

// Chat Completions replies as vLLM / Groq / Azure send them (the openai-compatible package's).
const fixtures = loadFixtureDirectory(
  fileURLToPath(new URL('../../openai-compatible/test/fixtures-vllm', import.meta.url)),
);
const textStream = () => {
  const found = fixtures['text-stream'];
  if (!found) throw new Error('no text-stream fixture');
  return found;
};

/** The registry example of the README, exactly as documented. */
function readmeRegistry(): string {
  const readme = readFileSync(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8');
  const section = readme.slice(readme.indexOf('\n## OpenAI-compatible servers\n'));
  const yaml = /```yaml\n([\s\S]*?)```/.exec(section)?.[1];
  if (!yaml) throw new Error('README: no yaml block under "## OpenAI-compatible servers"');
  return yaml;
}

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

describe('openai-compatible adapters in models.yaml', () => {
  it('knows the generic type and the preset types', () => {
    for (const type of ['openai-compatible', 'azure', 'vllm', 'groq']) {
      expect(KNOWN_ADAPTER_PACKAGES[type]?.package).toBe('@yourtool/openai-compatible');
    }
  });

  it('runs the README registry example: Azure, vLLM and Groq turns against a loopback server', async () => {
    // Groq has a fixed base URL; the adapter reads GROQ_BASE_URL from the environment first.
    const saved = process.env.GROQ_BASE_URL;
    process.env.GROQ_BASE_URL = server.url;
    const runtime = await createRuntime({
      models: readmeRegistry(),
      routing: 'global_default: azure-gpt',
      env: {
        AZURE_OPENAI_API_KEY: 'azure-runtime-test-0000',
        AZURE_OPENAI_ENDPOINT: server.url,
        VLLM_BASE_URL: `${server.url}/v1`,
        GROQ_API_KEY: 'gsk_runtime_test_0000',
      },
    });
    try {
      expect(runtime.registry.capabilitiesFor('local')).toMatchObject({
        supports_tools: true,
        supports_thinking: true,
        max_context_tokens: 40_960,
      });
      const session = await runtime.sessions.createSession({ workspace_path: '/work/foo' });
      const turns: Array<[string, string, string]> = [
        [
          'azure-gpt',
          'azure:gpt-4.1',
          '/openai/deployments/prod-gpt41/chat/completions?api-version=2024-10-21',
        ],
        ['local', 'vllm:Qwen/Qwen3-8B', '/v1/chat/completions'],
        ['fast', 'groq:llama-3.3-70b-versatile', '/chat/completions'],
      ];
      for (const [alias, model, path] of turns) {
        await runtime.sessions.swapModel(session.id, alias);
        server.enqueue(...textStream());
        const result = await runtime.sessions.sendAndWait(session.id, 'Say hello.');
        expect(result.end, alias).toBe('end_turn');
        expect(result.messages.at(-1)?.metadata.model).toBe(model);
        expect(server.requests.at(-1)?.path, alias).toBe(path);
      }
      const [azure, vllm, groq] = server.requests;
      expect(azure?.headers['api-key']).toBe('[REDACTED]');
      expect(azure?.body).toMatchObject({ model: 'prod-gpt41', max_completion_tokens: 4096 });
      expect(vllm?.headers).not.toHaveProperty('authorization');
      expect(vllm?.body).toMatchObject({ model: 'Qwen/Qwen3-8B', max_tokens: 4096 });
      expect(groq?.headers.authorization).toBe('[REDACTED]');
      expect(groq?.body).toMatchObject({ max_completion_tokens: 4096 });
      // the vLLM and Groq turns replayed the history before them
      expect((groq?.body as { messages?: unknown[] } | undefined)?.messages).toHaveLength(5);
      const { messages } = await runtime.store.loadMessages(session.id);
      expect(validateHistory(messages).ok).toBe(true);
    } finally {
      await runtime.close();
      if (saved === undefined) delete process.env.GROQ_BASE_URL;
      else process.env.GROQ_BASE_URL = saved;
    }
  });

  it('builds the generic type for openai-compatible:<name> models', async () => {
    const runtime = await createRuntime({
      models: `
adapters:
  lmstudio:
    type: openai-compatible
    base_url_env: LMSTUDIO_URL
    options: { requires_api_key: false, models: { qwen3-8b: { max_context_tokens: 32768 } } }
models:
  openai-compatible:qwen3-8b: { adapter: lmstudio, wire_name: qwen3-8b }
`,
      env: { LMSTUDIO_URL: server.url },
    });
    try {
      const session = await runtime.sessions.createSession({ workspace_path: '/work/foo' });
      server.enqueue(...textStream());
      const result = await runtime.sessions.sendAndWait(session.id, 'Say hello.');
      expect(result.end).toBe('end_turn');
      expect(result.messages.at(-1)?.metadata.model).toBe('openai-compatible:qwen3-8b');
      expect(server.requests[0]?.headers).not.toHaveProperty('authorization');
    } finally {
      await runtime.close();
    }
  });

  it('serves a service without a preset through a factory of its own type', async () => {
    const runtime = await createRuntime({
      models: `
adapters:
  together: { type: together, api_key_env: TOGETHER_API_KEY, base_url_env: TOGETHER_BASE_URL }
models:
  together:meta-llama/Llama-3.3-70B-Instruct-Turbo: { adapter: together, wire_name: meta-llama/Llama-3.3-70B-Instruct-Turbo }
`,
      env: { TOGETHER_API_KEY: 'together-test-0000', TOGETHER_BASE_URL: server.url },
      factories: {
        together: (config, runtime) =>
          new OpenAICompatibleAdapter(
            { ...config, options: { ...config.options, provider: 'together' } },
            runtime,
          ),
      },
    });
    try {
      const session = await runtime.sessions.createSession({ workspace_path: '/work/foo' });
      server.enqueue(...textStream());
      const result = await runtime.sessions.sendAndWait(session.id, 'Say hello.');
      expect(result.end).toBe('end_turn');
      expect(result.messages.at(-1)?.metadata.model).toBe(
        'together:meta-llama/Llama-3.3-70B-Instruct-Turbo',
      );
    } finally {
      await runtime.close();
    }
  });

  it('serves any other service from models.yaml alone: type openai-compatible with options.provider', async () => {
    const runtime = await createRuntime({
      models: `
adapters:
  together:
    type: openai-compatible
    api_key_env: TOGETHER_API_KEY
    base_url_env: TOGETHER_BASE_URL
    options: { provider: together }
models:
  together:meta-llama/Llama-3.3-70B-Instruct-Turbo: { adapter: together, wire_name: meta-llama/Llama-3.3-70B-Instruct-Turbo, aliases: [llama] }
`,
      env: { TOGETHER_API_KEY: 'together-test-0000', TOGETHER_BASE_URL: server.url },
    });
    try {
      const session = await runtime.sessions.createSession({ workspace_path: '/work/foo' });
      server.enqueue(...textStream());
      const result = await runtime.sessions.sendAndWait(session.id, 'Say hello.');
      expect(result.end).toBe('end_turn');
      expect(result.messages.at(-1)?.metadata).toMatchObject({
        model: 'together:meta-llama/Llama-3.3-70B-Instruct-Turbo',
        provider: 'together',
      });
      expect(server.requests[0]?.body).toMatchObject({
        model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo',
      });
    } finally {
      await runtime.close();
    }
    // the entry's provider is options.provider: a model id under the type is refused, named
    await expect(
      createRuntime({
        models: `
adapters:
  together: { type: openai-compatible, api_key: k, options: { provider: together } }
models:
  openai-compatible:llama: { adapter: together, wire_name: llama }
`,
      }),
    ).rejects.toThrow(/serving provider "together" \(options\.provider\)/);
  });
});
