import { sealMessage } from '@yourtool/core';
import type { KyselyPlugin, PluginTransformQueryArgs, RootOperationNode } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuplicateMessageError, SessionNotFoundError, type SqlSessionStore } from '../src/index.js';
import { assistantWithTools, toolAnswer, toolUseIds, userText } from './helpers/messages.js';
import { sqliteTarget, type Target, targets } from './helpers/targets.js';

/**
 * A write tells `onRevision` the session's revision it left, once committed (decision 0148),
 * so a reader keeping the history knows whether anyone else wrote without reading the session.
 */
describe.each(targets())('the revision a write reports on $name', ({ make }) => {
  const target: Target = make();
  let store: SqlSessionStore;
  beforeAll(async () => {
    store = await target.open();
  });
  afterAll(async () => {
    await store?.close();
    await target.dispose();
  });

  const revisionOf = async (id: string) => (await store.getSession(id))?.revision;

  it('appendMessage, updateMessage and a one-session appendMessages report the revision they made', async () => {
    const { id } = await store.createSession({ workspace_path: '/w' });
    const heard: number[] = [];
    const onRevision = (revision: number) => heard.push(revision);

    await store.appendMessage(sealMessage(userText(id, 'hello')), { onRevision });
    expect(heard).toEqual([await revisionOf(id)]);
    const assistant = assistantWithTools(id, [{ name: 'read_file', input: { path: 'a' } }]);
    await store.appendMessage(assistant, { onRevision });
    const [use] = toolUseIds(assistant);
    await store.appendMessage(toolAnswer(id, use as string, 'body'), { onRevision });
    await store.updateMessage(
      { ...assistant, metadata: { ...assistant.metadata } },
      { onRevision },
    );
    await store.appendMessages([userText(id, 'one'), userText(id, 'two')], { onRevision });
    expect(heard).toEqual([1, 2, 3, 4, 5]);
    expect(await revisionOf(id)).toBe(5);
  });

  it('reports nothing for a batch over several sessions, or a write that failed', async () => {
    const a = (await store.createSession({ workspace_path: '/a' })).id;
    const b = (await store.createSession({ workspace_path: '/b' })).id;
    const heard: number[] = [];
    const onRevision = (revision: number) => heard.push(revision);
    await store.appendMessages([userText(a, 'to a'), userText(b, 'to b')], { onRevision });
    const first = userText(a, 'once');
    await store.appendMessage(first, { onRevision });
    expect(heard).toEqual([2]);
    await expect(store.appendMessage(first, { onRevision })).rejects.toThrow(DuplicateMessageError);
    await expect(
      store.appendMessage(userText('sess_missing', 'nobody'), { onRevision }),
    ).rejects.toThrow(SessionNotFoundError);
    expect(heard).toEqual([2]);
    expect(await revisionOf(a)).toBe(2);
  });
});

/** Records the statements kysely compiles, for a store opened with it. */
function countingPlugin(): KyselyPlugin & { kinds: string[] } {
  const kinds: string[] = [];
  return {
    kinds,
    transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
      kinds.push(args.node.kind);
      return args.node;
    },
    async transformResult(args) {
      return args.result;
    },
  };
}

describe('SQLite: a plain append on prepared statements, through kysely with plugins', () => {
  it('the same rows either way; with a plugin every statement goes through kysely', async () => {
    const target = sqliteTarget();
    const plugin = countingPlugin();
    const direct = await target.open();
    const seen = await target.open({ plugins: [plugin] });
    try {
      const { id } = await direct.createSession({ workspace_path: '/w' });
      plugin.kinds.length = 0;
      await seen.appendMessage(userText(id, 'through kysely'));
      // plugins see every query: the store's prepared-statement path is off for them
      expect(plugin.kinds).toEqual(['RawNode', 'UpdateQueryNode', 'InsertQueryNode', 'RawNode']);
      await direct.appendMessage(userText(id, 'prepared statements'));
      expect(await direct.getSession(id)).toEqual(await seen.getSession(id));
      const both = await Promise.all([direct.loadMessages(id), seen.loadMessages(id)]);
      expect(both[0]).toEqual(both[1]);
      expect(both[0].messages.map((m) => (m.content[0] as { text: string }).text)).toEqual([
        'through kysely',
        'prepared statements',
      ]);
    } finally {
      await direct.close();
      await seen.close();
      await target.dispose();
    }
  });
});
