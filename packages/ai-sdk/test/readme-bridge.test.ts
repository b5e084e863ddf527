import { fileURLToPath } from 'node:url';
import { startScriptedProvider, text, thinking, toolCall, usage } from '@yourtool/testing';
import { materializeReadmeExample } from '@yourtool/testkit';
import { expect, it, onTestFinished } from 'vitest';

const at = (path: string) => fileURLToPath(new URL(path, import.meta.url));

async function scripted() {
  const provider = await startScriptedProvider();
  const key = process.env.ANTHROPIC_API_KEY;
  process.env.ANTHROPIC_API_KEY = 'test-key';
  onTestFinished(async () => {
    if (key === undefined) delete process.env.ANTHROPIC_API_KEY;
    else process.env.ANTHROPIC_API_KEY = key;
    await provider.close();
  });
  return provider;
}

it("the README's streamText on our Anthropic adapter runs its tool and reports signature and cache reads", async () => {
  const provider = await scripted();
  provider.reply(
    thinking('Look it up.', { signature: 'sig-1' }),
    toolCall('lookup', { word: 'hi' }),
    usage({ input_tokens: 90, output_tokens: 12, cached_input_tokens: 30 }),
  );
  provider.reply(text('"hi" is a greeting.'));
  const file = materializeReadmeExample({
    readme: at('../README.md'),
    heading: '## Our adapters as AI SDK models',
    rewrite: {
      '@yourtool/ai-sdk/model': at('../src/model/index.ts'),
      'https://api.anthropic.com': provider.url,
    },
    outFile: at('./.generated/readme-model.ts'),
  });
  const example = (await import(/* @vite-ignore */ file)) as { checks: number };
  expect(example.checks).toBe(3);
  expect(provider.requests).toHaveLength(2);
});

it("the README's AiSdkAdapter answers through the real @ai-sdk/anthropic model", async () => {
  const provider = await scripted();
  provider.reply(text('Hello!'));
  const file = materializeReadmeExample({
    readme: at('../README.md'),
    heading: '## AI SDK models as adapters',
    rewrite: {
      '@yourtool/ai-sdk/adapter': at('../src/adapter/index.ts'),
      'https://api.anthropic.com/v1': `${provider.url}/v1`,
    },
    outFile: at('./.generated/readme-adapter.ts'),
  });
  const example = (await import(/* @vite-ignore */ file)) as { checks: number };
  expect(example.checks).toBe(2);
  expect(provider.requests[0]?.format).toBe('anthropic');
});
