import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlSessionStore } from '../src/index.js';
import { type Target, targets } from './helpers/targets.js';

/** A session's user, tenant and tags (decision 0182), the scopes budgets are kept for. */
describe.each(targets())('session owner on $name', ({ make }) => {
  const target: Target = make();
  let store: SqlSessionStore;
  beforeAll(async () => {
    store = await target.open();
  });
  afterAll(async () => {
    await store?.close();
    await target.dispose();
  });

  it('stores user, tenant and tags, and reads them back on every path', async () => {
    const created = await store.createSession({
      workspace_path: '/w',
      user: 'u_1',
      tenant: 'acme',
      tags: ['agent:triage', 'beta', 'beta'],
    });
    const expected = { user: 'u_1', tenant: 'acme', tags: ['agent:triage', 'beta'] };
    expect(created).toMatchObject(expected);
    expect(await store.getSession(created.id)).toMatchObject(expected);
    const listed = await store.listSessions({ workspace_path: '/w' });
    expect(listed.sessions.find((s) => s.id === created.id)).toMatchObject(expected);
  });

  it('leaves the fields out of a session without them', async () => {
    const plain = await store.createSession({ workspace_path: '/p' });
    const read = await store.getSession(plain.id);
    expect(read && 'user' in read).toBe(false);
    expect(read && 'tags' in read).toBe(false);
  });

  it('refuses a bad owner, naming the field', async () => {
    await expect(
      store.createSession({ workspace_path: '/w', user: '', tags: ['ok', 3 as unknown as string] }),
    ).rejects.toMatchObject({
      issues: [
        { path: 'user', message: 'must be a non-empty string' },
        { path: 'tags[1]', message: 'must be a non-empty string' },
      ],
    });
  });
});
