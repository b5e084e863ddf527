import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DuplicateMessageError,
  DuplicateSessionError,
  type ImportOutcome,
  InvalidStoreInputError,
  type SessionExport,
  type SqlSessionStore,
  sessionToLines,
} from '../src/index.js';
import { assistantWithTools, toolAnswer, toolUseIds, userText } from './helpers/messages.js';
import { type Target, targets } from './helpers/targets.js';

/** A session with a tool loop, exported; then one more message stored after the export. */
async function exportedThenChanged(store: SqlSessionStore): Promise<SessionExport> {
  const { id } = await store.createSession({ workspace_path: '/w' });
  await store.appendMessage(userText(id, 'Read a.md'));
  const reply = assistantWithTools(id, [{ name: 'read_file' }]);
  await store.appendMessage(reply);
  await store.appendMessage(toolAnswer(id, toolUseIds(reply)[0] as string, '# A'));
  const exported = await store.exportSession(id);
  await store.appendMessage(userText(id, 'stored after the export'));
  return exported;
}

describe.each(targets())('importSession ifExists on $name', ({ make }) => {
  const target: Target = make();
  let store: SqlSessionStore;
  beforeAll(async () => {
    store = await target.open();
  });
  afterAll(async () => {
    await store?.close();
    await target.dispose();
  });

  it("'skip' leaves the stored session as it is and says so", async () => {
    const exported = await exportedThenChanged(store);
    const id = exported.session.id;
    const before = await store.getSession(id);
    const outcomes: ImportOutcome[] = [];
    const kept = await store.importSession(exported, {
      ifExists: 'skip',
      onOutcome: (o) => outcomes.push(o),
    });
    expect(outcomes).toEqual([{ session_id: id, action: 'skipped', replaced: null }]);
    expect(kept).toEqual(before);
    expect((await store.loadMessages(id)).messages).toHaveLength(4);
    await expect(store.importSession(exported)).rejects.toBeInstanceOf(DuplicateSessionError);
  });

  it("'replace' swaps the stored rows for the import's in one transaction", async () => {
    const exported = await exportedThenChanged(store);
    const id = exported.session.id;
    const revision = (await store.getSession(id))?.revision ?? 0;
    const outcomes: ImportOutcome[] = [];
    const replaced = await store.importSession(exported, {
      ifExists: 'replace',
      onOutcome: (o) => outcomes.push(o),
    });
    expect(outcomes).toEqual([
      {
        session_id: id,
        action: 'replaced',
        replaced: { session_id: id, messages: 4, tool_calls: 1 },
      },
    ]);
    expect(sessionToLines(await store.exportSession(id))).toBe(sessionToLines(exported));
    // a reader that kept the replaced session sees a revision it has not seen
    expect(replaced.revision).toBe(revision + 1);
    expect((await store.getSession(id))?.revision).toBe(revision + 1);
  });

  it("a refused 'replace' keeps the stored session", async () => {
    const exported = await exportedThenChanged(store);
    const id = exported.session.id;
    const before = sessionToLines(await store.exportSession(id));
    // another session holds a message id the import also uses
    const other = await store.createSession({ workspace_path: '/other' });
    const taken = await store.appendMessage(userText(other.id, 'mine'));
    const clash = {
      ...exported,
      messages: exported.messages.map((m, i) => (i === 0 ? { ...m, id: taken.id } : m)),
    };
    const outcomes: ImportOutcome[] = [];
    await expect(
      store.importSession(clash, { ifExists: 'replace', onOutcome: (o) => outcomes.push(o) }),
    ).rejects.toBeInstanceOf(DuplicateMessageError);
    expect(outcomes).toEqual([]);
    expect(sessionToLines(await store.exportSession(id))).toBe(before);
  });

  it('refuses an unknown ifExists before anything is written', async () => {
    const exported = await exportedThenChanged(store);
    await expect(
      store.importSession(exported, { ifExists: 'merge' as never }),
    ).rejects.toBeInstanceOf(InvalidStoreInputError);
  });
});
