import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newSessionId } from '@yourtool/core';
import { openStore } from '@yourtool/store';
import { buildSession } from '../lib/session.js';

/** Sessions in the store `yourtool sessions list` reads (the command shows 50 by default). */
export const LIST_SESSIONS = 60;
/** Messages per session (turns of five). */
export const LIST_MESSAGES = 20;

/** A SQLite session store on disk for the CLI to read, removed by `dispose`. */
export interface CliStore {
  url: string;
  dir: string;
  dispose(): void;
}

/**
 * Writes a SQLite store of {@link LIST_SESSIONS} sessions, {@link LIST_MESSAGES} messages each
 * (with usage and cost), through the store itself, then closes it.
 */
export async function sessionsStore(): Promise<CliStore> {
  const dir = mkdtempSync(join(tmpdir(), 'yourtool-bench-cli-'));
  const url = `sqlite:${join(dir, 'sessions.db')}`;
  const store = await openStore(url);
  try {
    for (let i = 0; i < LIST_SESSIONS; i++) {
      const id = newSessionId();
      await store.createSession({ id, workspace_path: `/bench/${i % 4}` });
      await store.appendMessages(buildSession({ sessionId: id, messages: LIST_MESSAGES, seed: i }));
    }
  } finally {
    await store.close();
  }
  return { url, dir, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}
