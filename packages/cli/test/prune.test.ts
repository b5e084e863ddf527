import { join } from 'node:path';
import { createMessage } from '@yourtool/core';
import { openStore } from '@yourtool/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fingerprint, run, workspace } from './helpers.js';

/** `yourtool sessions prune` (decision 0184) through the built CLI on a SQLite store. */
let dir: { dir: string; dispose(): void };
let file: string;
let store: string;
const ids: { old: string[]; recent: string; audit: string } = { old: [], recent: '', audit: '' };

beforeAll(async () => {
  dir = workspace();
  file = join(dir.dir, 'sessions.db');
  store = `sqlite:${file}`;
  const db = await openStore(store);
  try {
    const make = async (tags?: string[]) => {
      const { id } = await db.createSession({ workspace_path: '/w', ...(tags ? { tags } : {}) });
      await db.appendMessage(
        createMessage({ session_id: id, role: 'user', content: [{ type: 'text', text: 'hi' }] }),
      );
      return id;
    };
    ids.old = [await make(), await make()];
    ids.recent = await make();
    ids.audit = await make(['audit']);
    const fortyDaysAgo = (Date.now() - 40 * 86_400_000) * 1000;
    await db.db
      .updateTable('sessions')
      .set({ updated_at: fortyDaysAgo })
      .where('id', 'in', [...ids.old, ids.audit])
      .execute();
  } finally {
    await db.close();
  }
});
afterAll(() => dir.dispose());

describe('yourtool sessions prune', () => {
  it('--dry-run says what would go and changes nothing', async () => {
    const before = fingerprint(file);
    const result = await run(
      [
        'sessions',
        'prune',
        '--older-than',
        '30d',
        '--tag',
        'audit=365d',
        '--dry-run',
        '--store',
        store,
      ],
      dir.dir,
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      'would remove 2 session(s), 4 row(s): 2 message(s), 0 tool call(s), 0 tool approval(s), 0 budget row(s)\n',
    );
    expect(fingerprint(file)).toBe(before);
  });

  it('removes the expired sessions and reports rows and freed bytes as JSON', async () => {
    const result = await run(
      [
        'sessions',
        'prune',
        '--older-than',
        '30d',
        '--tag',
        'audit=365d',
        '--json',
        '--store',
        store,
      ],
      dir.dir,
    );
    expect(result.stderr).toBe('');
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({ dry_run: false, sessions: 2, rows: { total: 4, messages: 2 } });
    expect(report.freed_measure).toMatch(/^sqlite_/);
    const db = await openStore(store);
    try {
      for (const id of ids.old) expect(await db.getSession(id)).toBeNull();
      expect(await db.getSession(ids.recent)).not.toBeNull();
      expect(await db.getSession(ids.audit)).not.toBeNull();
    } finally {
      await db.close();
    }
  });

  it.each([
    [['--older-than', 'soon'], '--older-than must be a whole number and a unit'],
    [['--older-than', '30d', '--tag', 'audit'], '--tag must be <tag>=<age>'],
    [['--older-than', '30d', '--batch-size', '0'], 'must be a whole number from 1 to 1000'],
  ])('refuses %j, naming the option', async (args, message) => {
    const result = await run(['sessions', 'prune', ...args, '--store', store], dir.dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });
});
