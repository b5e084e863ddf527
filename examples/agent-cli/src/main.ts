import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { Agent } from './agent.js';

// `pnpm start -- --models models.yaml [--routing routing.yaml] [--db agent.db] [--summarizer haiku] [--mcp mcp.yaml]`
const { values } = parseArgs({
  options: {
    models: { type: 'string', default: 'models.yaml' },
    routing: { type: 'string' },
    db: { type: 'string', default: 'agent.db' },
    workspace: { type: 'string', default: process.cwd() },
    summarizer: { type: 'string' },
    mcp: { type: 'string' },
  },
});

const rl = createInterface({ input: process.stdin, output: process.stdout });
let agent: Agent | undefined;
// Ctrl-C typed at the terminal: readline catches it; sent as a signal: the process gets it
rl.on('SIGINT', () => agent?.interrupt());
process.on('SIGINT', () => agent?.interrupt());

// Lines in a queue, so none is lost when they arrive before they are asked for (a pipe)
const lines: string[] = [];
let waiting: ((line: string | null) => void) | undefined;
let ended = false;
rl.on('line', (line) => (waiting ? waiting(line) : lines.push(line)));
rl.on('close', () => {
  ended = true;
  waiting?.(null);
});

function ask(prompt: string, signal?: AbortSignal): Promise<string | null> {
  rl.setPrompt(prompt);
  rl.prompt();
  if (lines.length > 0) return Promise.resolve(lines.shift() as string);
  if (ended || signal?.aborted) return Promise.resolve(null);
  return new Promise((resolve) => {
    const done = (line: string | null) => {
      waiting = undefined;
      signal?.removeEventListener('abort', aborted);
      resolve(line);
    };
    const aborted = () => done(null);
    waiting = done;
    signal?.addEventListener('abort', aborted, { once: true });
  });
}

try {
  agent = await Agent.start({
    models: readFileSync(values.models, 'utf8'),
    ...(values.routing ? { routing: readFileSync(values.routing, 'utf8') } : {}),
    db: resolve(values.db),
    workspace: resolve(values.workspace),
    ...(values.summarizer ? { summarizer: values.summarizer } : {}),
    ...(values.mcp ? { mcp: readFileSync(values.mcp, 'utf8') } : {}),
    ask,
    write: (text) => process.stdout.write(text),
  });
  await agent.run();
} catch (error) {
  process.stderr.write(`agent: ${(error as Error).message}\n`);
  process.exitCode = 1;
} finally {
  rl.close();
  await agent?.close();
}
