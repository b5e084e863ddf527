import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openStore } from '@yourtool/store';
import { startScriptedProvider, text } from '@yourtool/testing';
import { materializeReadmeExample } from '@yourtool/testkit';
import { expect, it, onTestFinished } from 'vitest';
import { MODELS, userMessage } from './helpers.js';

const at = (path: string) => fileURLToPath(new URL(path, import.meta.url));

it("the README's Next.js route answers a useChat POST with the turn's stream", async () => {
  const provider = await startScriptedProvider();
  const dir = mkdtempSync(join(tmpdir(), 'ai-sdk-readme-'));
  onTestFinished(async () => {
    await provider.close();
    rmSync(dir, { recursive: true, force: true });
  });
  writeFileSync(join(dir, 'models.yaml'), provider.modelsYaml({ models: MODELS }));
  const db = `sqlite:${join(dir, 'chat.db')}`;
  const file = materializeReadmeExample({
    readme: at('../README.md'),
    heading: '## A Next.js route',
    rewrite: {
      '@yourtool/ai-sdk': at('../src/index.ts'),
      'models.yaml': join(dir, 'models.yaml'),
      'sqlite:chat.db': db,
    },
    outFile: at('./.generated/readme-next-route.ts'),
  });
  const route = (await import(/* @vite-ignore */ file)) as {
    POST: (r: Request) => Promise<Response>;
  };
  const store = await openStore(db);
  const session = await store.createSession({ workspace_path: 'chat' });
  await store.close();
  provider.reply(text('Hi from the route.'));
  const response = await route.POST(
    new Request(`http://localhost/api/chat?session=${session.id}`, {
      method: 'POST',
      body: JSON.stringify({ id: 'c', trigger: 'submit-message', messages: [userMessage('Hi')] }),
    }),
  );
  expect(response.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
  const body = await response.text();
  expect(body).toContain('"delta":"Hi from the route."');
  expect(body.endsWith('data: [DONE]\n\n')).toBe(true);
});
