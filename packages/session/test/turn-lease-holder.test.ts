import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createMessage, type Message, silentLogger, type TurnLeaseWrite } from '@yourtool/core';
import { openStore, type SqlSessionStore } from '@yourtool/store';
import { assistantTestMetadata } from '@yourtool/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { TurnLeaseHolder } from '../src/turn-lease.js';

/**
 * A heartbeat that renews while the turn's finishing write commits: the renewal meets a lease
 * already released and fails as lost, and may settle before the holder hears that the release
 * committed (a store settling a batch of writes at once makes that the usual order). The
 * turn finished; it must not be cancelled as lost.
 */

const dirs: string[] = [];
const stores: SqlSessionStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function sqliteStore(): Promise<SqlSessionStore> {
  const dir = mkdtempSync(join(tmpdir(), 'lease-holder-'));
  dirs.push(dir);
  const store = await openStore(`sqlite:${join(dir, 'sessions.db')}`);
  stores.push(store);
  return store;
}

describe('TurnLeaseHolder', () => {
  it('a renewal that fails after the finishing write committed, before the holder heard of it, does not cancel the turn', async () => {
    const store = await sqliteStore();
    const session = await store.createSession({ workspace_path: '/w' });
    const lost: unknown[] = [];
    const holder = TurnLeaseHolder.for(store, {
      sessionId: session.id,
      settings: { ttlMs: 10_000, heartbeatMs: 5 },
      logger: silentLogger,
      onLost: (error) => lost.push(error),
    });
    if (holder === null) throw new Error('a SQLite store keeps leases');
    const append = async (message: Message): Promise<TurnLeaseWrite> => {
      const write = holder.writeFor(message);
      await store.appendMessage(message, { lease: write });
      return write;
    };
    const user = createMessage({
      session_id: session.id,
      role: 'user',
      content: [{ type: 'text', text: 'hi' }],
    });
    holder.wrote(await append(user));
    const reply = createMessage({
      session_id: session.id,
      role: 'assistant',
      content: [{ type: 'text', text: 'hello' }],
      metadata: { status: 'complete', ...assistantTestMetadata('anthropic:claude-sonnet-4-6') },
    });
    const release = await append(reply);
    expect('release' in release).toBe(true);
    // the release committed; the holder has not been told yet, and heartbeats go on meanwhile
    await sleep(60);
    holder.wrote(release);
    await holder.end();
    expect(lost).toEqual([]);
  });
});
