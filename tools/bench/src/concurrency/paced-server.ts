import { fork } from 'node:child_process';
import type { PacedServerCommand, PacedServerReply } from './server.js';

/** What the paced server reported about the requests since the last time it was asked. */
export type PacedServerStats = Exclude<PacedServerReply, { ready: string }>;

/** A running paced server process: its URL, its figures, and its end. */
export interface PacedServer {
  url: string;
  stats(): Promise<PacedServerStats>;
  close(): Promise<void>;
}

/** Forks the paced Anthropic server (server.ts) and waits until it listens. */
export async function startPacedServer(): Promise<PacedServer> {
  const child = fork(new URL('./server.ts', import.meta.url), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const replies: Array<(reply: PacedServerReply) => void> = [];
  child.on('message', (reply: PacedServerReply) => replies.shift()?.(reply));
  const next = () => new Promise<PacedServerReply>((resolve) => replies.push(resolve));
  const ready = await next();
  if (!('ready' in ready)) throw new Error('the paced server did not start');
  return {
    url: ready.ready,
    stats: async () => {
      const reply = next();
      child.send({ stats: true } satisfies PacedServerCommand);
      const stats = await reply;
      if ('ready' in stats) throw new Error('unexpected reply from the paced server');
      return stats;
    },
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.send({ close: true } satisfies PacedServerCommand);
      await exited;
    },
  };
}
