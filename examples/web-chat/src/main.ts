import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startWebChat } from './server.js';

// `pnpm start --models models.yaml [--routing routing.yaml] [--db web-chat.db] [--choices <canonical ids>]`
const { values } = parseArgs({
  options: {
    models: { type: 'string', default: 'models.yaml' },
    routing: { type: 'string' },
    db: { type: 'string', default: 'web-chat.db' },
    choices: { type: 'string', default: 'anthropic:claude-sonnet-4-6,google:gemini-2.5-flash' },
    port: { type: 'string', default: '3000' },
  },
});
const chat = await startWebChat({
  models: readFileSync(values.models, 'utf8'),
  ...(values.routing ? { routing: readFileSync(values.routing, 'utf8') } : {}),
  choices: values.choices.split(','),
  db: resolve(values.db),
  port: Number(values.port),
});
process.stdout.write(`web chat: ${chat.url}\n`);
process.on('SIGINT', () => {
  void chat.close().then(() => process.exit(0));
});
