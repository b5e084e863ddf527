import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlApprovalStore, type SqlSessionStore } from '../src/index.js';
import { type Target, targets } from './helpers/targets.js';

/**
 * Tool approvals across processes (decision 0177): asked through one connection, answered
 * through another, each answer counted once; rows go with their session.
 */
describe.each(targets())('tool approvals on $name', ({ make }) => {
  const target: Target = make();
  let store: SqlSessionStore;
  let other: SqlSessionStore;
  beforeAll(async () => {
    store = await target.open();
    other = await target.open();
  });
  afterAll(async () => {
    await store?.close();
    await other?.close();
    await target.dispose();
  });

  it('an approval asked here is answered there, once', async () => {
    const session = await store.createSession({ workspace_path: '/w' });
    const here = new SqlApprovalStore(store);
    const there = new SqlApprovalStore(other);
    await here.request({ session_id: session.id, tool_use_id: 'tu_1', tool_name: 'write_file' });
    await here.request({ session_id: session.id, tool_use_id: 'tu_1', tool_name: 'write_file' });
    expect((await there.pending(session.id)).map((r) => r.tool_use_id)).toEqual(['tu_1']);
    const answered = await there.answer(session.id, 'tu_1', { approved: false, reason: 'no' });
    expect(answered).toEqual({
      session_id: session.id,
      tool_use_id: 'tu_1',
      tool_name: 'write_file',
      status: 'denied',
      reason: 'no',
    });
    expect(await here.answer(session.id, 'tu_1', { approved: true })).toBeNull();
    expect((await here.get(session.id, 'tu_1'))?.status).toBe('denied');
    expect(await there.pending(session.id)).toEqual([]);
    expect(await there.answer(session.id, 'tu_unknown', { approved: true })).toBeNull();
  });

  it('expires only what is pending, and goes with its session', async () => {
    const session = await store.createSession({ workspace_path: '/w' });
    const approvals = new SqlApprovalStore(store);
    await approvals.request({ session_id: session.id, tool_use_id: 'tu_2', tool_name: 'run' });
    expect(await approvals.expire(session.id, 'tu_2')).toBe(true);
    expect(await approvals.expire(session.id, 'tu_2')).toBe(false);
    expect(await approvals.answer(session.id, 'tu_2', { approved: true })).toBeNull();
    expect((await approvals.get(session.id, 'tu_2'))?.status).toBe('expired');
    await store.deleteSession(session.id);
    expect(await approvals.get(session.id, 'tu_2')).toBeNull();
  });
});
