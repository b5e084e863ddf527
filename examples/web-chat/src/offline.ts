import { resolve } from 'node:path';
import { startScriptedProvider } from '@yourtool/testing';
import { scriptDemoModel } from './demo-model.js';
import { startWebChat } from './server.js';

// `pnpm offline`: the chat on the scripted provider (no keys); PORT picks the port (default 3000)
const provider = await startScriptedProvider();
scriptDemoModel(provider);
const chat = await startWebChat({
  models: provider.modelsYaml({
    models: {
      'anthropic:claude-sonnet-4-6': { aliases: ['sonnet'] },
      'google:gemini-2.5-flash': { aliases: ['gemini'] },
    },
  }),
  choices: ['anthropic:claude-sonnet-4-6', 'google:gemini-2.5-flash'],
  db: resolve(process.env.DB ?? 'web-chat.db'),
  port: Number(process.env.PORT ?? 3000),
});
process.stdout.write(`web chat (offline, scripted models): ${chat.url}\n`);
process.on('SIGINT', () => {
  void chat
    .close()
    .then(() => provider.close())
    .then(() => process.exit(0));
});
