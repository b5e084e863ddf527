import { createMessage, type Message, sealMessage, ToolIdMap } from '@yourtool/core';
import type { KyselyPlugin } from 'kysely';
import { expect } from 'vitest';
import type { SqlSessionStore } from '../../src/index.js';
import { assistantWithTools, MODEL, toolAnswer, toolUseIds, userText } from './messages.js';

// A session's text turn and tool turn as the session layer writes them, to compare the store's
// fast paths with its kysely path (a store with a plugin takes the kysely path for everything).

/** A plugin that changes nothing: with it the store takes the kysely path for everything. */
export const passThrough: KyselyPlugin = {
  transformQuery: (args) => args.node,
  transformResult: async (args) => args.result,
};

function partialAssistant(sessionId: string): Message {
  return createMessage({
    session_id: sessionId,
    role: 'assistant',
    content: [],
    metadata: { model: MODEL, provider: 'anthropic', status: 'partial' },
  });
}

/** A text turn and a tool turn, as the session layer writes them, with their leases. */
export async function tourOf(store: SqlSessionStore, sessionId: string, messages: Message[]) {
  const [user, partial, tools, answer, stray, partial2, done, cancelled] = messages as [
    Message,
    Message,
    Message,
    Message,
    Message,
    Message,
    Message,
    Message,
  ];
  const turn = { id: 'turn_1', ttlMs: 30_000 };
  const revisions: number[] = [];
  const onRevision = (r: number) => revisions.push(r);
  const map = new ToolIdMap();
  for (const id of messages.flatMap(toolUseIds)) {
    map.set({ canonical_id: id, provider: 'anthropic', provider_id: `toolu_${id}` });
  }
  await store.appendMessage(user, { lease: { take: turn }, onRevision });
  await store.appendMessage(partial, { lease: { hold: turn }, onRevision });
  // the streamed reply ends calling tools: its rows come with the update
  await store.updateMessage(tools, { lease: { hold: turn }, onRevision });
  await store.appendMessage(answer, { lease: { hold: turn }, onRevision });
  await store.appendMessage(stray, { lease: { hold: turn }, onRevision });
  await store.renewTurnLease(sessionId, turn);
  await store.appendMessage(partial2, { lease: { hold: turn }, onRevision });
  await store.updateMessage(done, { lease: { release: turn }, onRevision });
  // a message written before its provider ids were known, then cancelled with them
  await store.appendMessage(cancelled, { onRevision });
  await store.updateMessage(
    { ...cancelled, metadata: { ...cancelled.metadata, status: 'cancelled' } },
    { onRevision, toolIdMap: map },
  );
  expect(await store.releaseTurnLease(sessionId, turn)).toBe(false);
  return revisions;
}

export function messagesFor(sessionId: string): Message[] {
  const partial = partialAssistant(sessionId);
  const tools = assistantWithTools(sessionId, [{ name: 'ls' }, { name: 'grep' }]);
  const [lsId] = toolUseIds(tools) as [string];
  const partial2 = partialAssistant(sessionId);
  const cancelled = assistantWithTools(sessionId, [{ name: 'cat' }]);
  return [
    sealMessage(userText(sessionId, 'list the files')),
    partial,
    { ...tools, id: partial.id, created_at: partial.created_at },
    sealMessage(toolAnswer(sessionId, lsId, 'a.txt')),
    toolAnswer(sessionId, 'toolu_not_a_call', 'nobody asked'),
    partial2,
    { ...assistantWithTools(sessionId, []), id: partial2.id, created_at: partial2.created_at },
    cancelled,
  ];
}

/** Rows that hold the process's clock, without it. */
export async function rowsOf(store: SqlSessionStore, sessionId: string) {
  const exported = await store.exportSession(sessionId);
  const session = await store.db
    .selectFrom('sessions')
    .select(['revision', 'turn_lease_id', 'turn_lease_expires_at'])
    .where('id', '=', sessionId)
    .executeTakeFirstOrThrow();
  return {
    session,
    messages: exported.messages,
    tool_calls: exported.tool_calls.map(({ completed_at, ...call }) => ({
      ...call,
      completed: completed_at !== null,
    })),
  };
}
