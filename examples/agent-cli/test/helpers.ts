import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ScriptedProvider } from '@yourtool/testing';
import { onTestFinished } from 'vitest';
import { Agent, type AgentOptions } from '../src/agent.js';

export const MODELS = {
  'anthropic:claude-sonnet-4-6': { aliases: ['sonnet'] },
  'google:gemini-2.5-flash': { aliases: ['gemini'] },
};

/** A workspace directory (it holds the agent's SQLite file too), removed after the test. */
export function tempWorkspace(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agent-cli-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

type Run = Partial<AgentOptions> & { provider: ScriptedProvider; dir: string };
/** Runs an agent on the scripted provider (MODELS), typing `lines`; '^C' presses Ctrl-C. */
export async function runAgent(lines: string[], { provider, dir, ...options }: Run) {
  const out: string[] = [];
  const agent: Agent = await Agent.start({
    models: provider.modelsYaml({ models: MODELS }),
    db: join(dir, 'agent.db'),
    workspace: dir,
    logger: false,
    write: (text) => out.push(text),
    ask: async (prompt) => {
      out.push(prompt);
      const line = lines.shift() ?? null;
      if (line === '^C') agent.interrupt();
      return line === '^C' ? null : line;
    },
    ...options,
  });
  await agent.run().finally(() => agent.close());
  return { agent, output: out.join('') };
}
