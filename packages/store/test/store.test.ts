import {
  CorruptRowError,
  createMemoryLogger,
  createMessage,
  type Message,
  newMessageId,
  newSessionId,
  newToolUseId,
  nowTimestamp,
  type SessionStore,
  ToolIdMap,
  timestampToEpochMicros,
} from '@yourtool/core';
import { defaultPriceTable, repriceMessages } from '@yourtool/pricing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DuplicateMessageError,
  DuplicateSessionError,
  DuplicateToolCallError,
  InvalidStoreInputError,
  MessageNotFoundError,
  SessionNotFoundError,
  type SqlSessionStore,
} from '../src/index.js';
import { FailingQueries } from './helpers/failing-queries.js';
import {
  assistantWithTools,
  MODEL,
  toolAnswer,
  toolUseIds,
  usage,
  userText,
} from './helpers/messages.js';
import { type Target, targets } from './helpers/targets.js';

describe.each(targets())('store on $name', ({ make }) => {
  const target: Target = make();
  const failing = new FailingQueries();
  const logger = createMemoryLogger();
  let store: SqlSessionStore;

  beforeAll(async () => {
    store = await target.open({ logger, plugins: [failing] });
  });
  afterAll(async () => {
    await store?.close();
    await target.dispose();
  });

  async function newSession(): Promise<string> {
    return (await store.createSession({ workspace_path: '/work/test' })).id;
  }

  it(`runs on ${target.name}`, () => {
    expect(store.dialect).toBe(target.name);
  });

  describe('sessions', () => {
    it('creates, gets, updates and lists sessions', async () => {
      const workspace = `/work/${newSessionId()}`;
      const created = await store.createSession({
        workspace_path: workspace,
        active_model: MODEL,
        routing_policy: { rules: [{ when: 'tools', use: 'openai:gpt-5' }], sticky: true },
      });
      expect(created.id).toMatch(/^sess_/);
      expect(created).toMatchObject({ workspace_path: workspace, schema_version: 1 });
      expect(await store.getSession(created.id)).toEqual(created);
      expect(await store.getSession('sess_missing')).toBeNull();

      const updated = await store.updateSession(created.id, { active_model: 'openai:gpt-5' });
      expect(updated.active_model).toBe('openai:gpt-5');
      expect(updated.routing_policy).toEqual(created.routing_policy);
      expect(timestampToEpochMicros(updated.updated_at)).toBeGreaterThan(
        timestampToEpochMicros(created.updated_at),
      );
      const cleared = await store.updateSession(created.id, {
        routing_policy: null,
        active_model: null,
      });
      expect(cleared).toMatchObject({ routing_policy: null, active_model: null });

      const second = await store.createSession({
        workspace_path: workspace,
        id: `sess_${newMessageId()}`,
      });
      const listed = await store.listSessions({ workspace_path: workspace });
      expect(listed.sessions.map((s) => s.id)).toEqual([second.id, created.id]);
      expect(listed.next_cursor).toBeNull();
    });

    it('pages through sessions, most recently updated first', async () => {
      const workspace = `/work/${newSessionId()}`;
      const ids: string[] = [];
      for (let i = 0; i < 7; i++)
        ids.push((await store.createSession({ workspace_path: workspace })).id);
      // Appending to the oldest session makes it the most recently updated.
      await store.appendMessage(userText(ids[0] ?? '', 'bump'));
      const seen: string[] = [];
      let cursor: string | undefined;
      for (;;) {
        const page = await store.listSessions({
          workspace_path: workspace,
          limit: 3,
          ...(cursor ? { cursor } : {}),
        });
        seen.push(...page.sessions.map((s) => s.id));
        if (!page.next_cursor) break;
        cursor = page.next_cursor;
      }
      expect(seen).toEqual([ids[0], ...ids.slice(1).reverse()]);
    });

    it('reports a session row with an unreadable routing policy, and lists the others', async () => {
      const workspace = `/work/${newSessionId()}`;
      const good = await store.createSession({ workspace_path: workspace });
      const bad = await store.createSession({
        workspace_path: workspace,
        routing_policy: { a: 1 },
      });
      await store.db
        .updateTable('sessions')
        .set({ routing_policy_json: '{"a":' })
        .where('id', '=', bad.id)
        .execute();
      await expect(store.getSession(bad.id)).rejects.toThrow(CorruptRowError);
      await expect(store.getSession(bad.id)).rejects.toThrow(`sessions row ${bad.id}`);
      const listed = await store.listSessions({ workspace_path: workspace });
      expect(listed.sessions.map((s) => s.id)).toEqual([good.id]);
      expect(
        logger.warnings().some((w) => w.obj.event === 'corrupt_row' && w.obj.row_id === bad.id),
      ).toBe(true);
    });

    it('refuses duplicate ids, bad input and unknown sessions with typed errors', async () => {
      const id = await newSession();
      await expect(store.createSession({ id, workspace_path: '/w' })).rejects.toThrow(
        DuplicateSessionError,
      );
      await expect(store.createSession({ workspace_path: '' })).rejects.toThrow(
        /workspace_path: must be a non-empty string/,
      );
      await expect(
        store.createSession({ workspace_path: '/w', active_model: 'sonnet' }),
      ).rejects.toThrow(/active_model/);
      await expect(store.updateSession('sess_nope', { active_model: null })).rejects.toThrow(
        SessionNotFoundError,
      );
      await expect(store.loadMessages('sess_nope')).rejects.toThrow(SessionNotFoundError);
    });
  });

  describe('messages', () => {
    it('round-trips every content block type and metadata field', async () => {
      const session_id = await newSession();
      const toolId = newToolUseId();
      const system = createMessage({
        session_id,
        role: 'system',
        content: [{ type: 'text', text: 'You are terse.' }],
      });
      const user = createMessage({
        session_id,
        role: 'user',
        content: [
          { type: 'text', text: 'Quotes "x", tabs\t, newline\n, NUL \u0000, ünïcödé 漢字 🚀' },
          {
            type: 'image',
            source: { kind: 'base64', data: 'iVBORw0KGgo=' },
            media_type: 'image/png',
          },
          {
            type: 'image',
            source: { kind: 'url', data: 'https://example.com/a.jpg' },
            media_type: 'image/jpeg',
          },
          {
            type: 'image',
            source: { kind: 'file_ref', data: 'docs/shot.webp' },
            media_type: 'image/webp',
          },
        ],
        metadata: { user_id: 'usr_1', team_id: 'team_1' },
      });
      const assistant = createMessage({
        session_id,
        role: 'assistant',
        content: [
          { type: 'thinking', text: 'Reading first… 🤔', signature: 'EqQBsig==' },
          { type: 'thinking', text: 'no signature', signature: null },
          { type: 'redacted_thinking', data: 'RW5jcnlwdGVk' },
          { type: 'text', text: 'Reading it.' },
          {
            type: 'tool_use',
            id: toolId,
            name: 'read_file',
            input: {
              path: 'README.md',
              int: 42,
              float: 1.5,
              negative: -7,
              max: Number.MAX_SAFE_INTEGER,
              yes: true,
              nothing: null,
              list: [1, 'two', { three: [null, false] }],
              nested: { deep: { deeper: '日本語' } },
              empty: {},
            },
          },
        ],
        metadata: {
          model: MODEL,
          provider: 'anthropic',
          routing: {
            mode: 'rule',
            chosen_model: MODEL,
            reason: 'tools rule',
            rule_name: 'prefer-sonnet-for-tools',
            confidence: 0.75,
            alternatives_considered: ['openai:gpt-5', 'anthropic:claude-haiku-4-5'],
          },
          usage: usage({
            cached_input_tokens: 100,
            cache_creation_input_tokens: 50,
            estimated: true,
          }),
          status: 'complete',
          provider_raw: { stop_reason: 'tool_use', nested: { list: [1, 2, 3] } },
          user_id: 'usr_1',
          team_id: 'team_1',
          critical: true,
        },
      });
      const tool = createMessage({
        session_id,
        role: 'tool',
        content: [
          {
            type: 'tool_result',
            tool_use_id: toolId,
            content: [
              { type: 'text', text: '# Title' },
              {
                type: 'image',
                source: { kind: 'base64', data: 'R0lGOD==' },
                media_type: 'image/gif',
              },
            ],
            is_error: true,
          },
        ],
        metadata: { parent_tool_use_id: toolId, status: 'complete' },
      });
      const partial = createMessage({
        session_id,
        role: 'assistant',
        content: [],
        metadata: { status: 'partial', model: MODEL, provider: 'anthropic' },
      });
      const all = [system, user, assistant, tool, partial];
      for (const m of all) await store.appendMessage(m);
      const loaded = await store.loadMessages(session_id);
      expect(loaded.errors).toEqual([]);
      expect(loaded.messages).toEqual(all);
      expect(await store.getMessage(assistant.id)).toEqual(assistant);
    });

    it('orders many messages created in the same millisecond by created_at, then id', async () => {
      const session_id = await newSession();
      const messages = Array.from({ length: 600 }, (_, i) => userText(session_id, `m${i}`));
      const milliseconds = new Set(messages.map((m) => m.created_at.slice(0, 23)));
      expect(milliseconds.size).toBeLessThan(messages.length / 3); // many share a millisecond
      // Identical timestamps: the monotonic ULID id decides.
      const at = nowTimestamp();
      const sameInstant = Array.from({ length: 50 }, (_, i) =>
        createMessage({
          session_id,
          role: 'user',
          content: [{ type: 'text', text: `s${i}` }],
          created_at: at,
        }),
      );
      const expected = [...messages, ...sameInstant];
      const shuffled = [...expected].sort(() => Math.random() - 0.5);
      const half = shuffled.length / 2;
      for (const m of shuffled.slice(0, half)) await store.appendMessage(m);
      await store.appendMessages(shuffled.slice(half));
      const loaded = await store.loadMessages(session_id);
      expect(loaded.messages.map((m) => m.id)).toEqual(expected.map((m) => m.id));
      expect(loaded.messages.map((m) => m.created_at)).toEqual(expected.map((m) => m.created_at));
    });

    it('pages through messages and iterates over them in order', async () => {
      const session_id = await newSession();
      const messages = Array.from({ length: 95 }, (_, i) => userText(session_id, `p${i}`));
      await store.appendMessages(messages);
      const paged: string[] = [];
      let after: string | null = null;
      let pages = 0;
      do {
        const page = await store.pageMessages(session_id, { after, limit: 10 });
        paged.push(...page.messages.map((m) => m.id));
        after = page.next_cursor;
        pages++;
      } while (after !== null);
      expect(pages).toBe(10);
      expect(paged).toEqual(messages.map((m) => m.id));

      const iterated: string[] = [];
      for await (const m of store.iterateMessages({ sessionId: session_id, batchSize: 7 })) {
        iterated.push(m.id);
      }
      expect(iterated).toEqual(paged);
      await expect(store.pageMessages(session_id, { after: 'garbage', limit: 10 })).rejects.toThrow(
        InvalidStoreInputError,
      );
    });

    it('moves a message from partial to complete without changing its position', async () => {
      const session_id = await newSession();
      const first = userText(session_id, 'hello');
      const partial = createMessage({
        session_id,
        role: 'assistant',
        content: [{ type: 'text', text: 'Let me' }],
        metadata: { status: 'partial', model: MODEL, provider: 'anthropic' },
      });
      const later = userText(session_id, 'are you there?');
      await store.appendMessages([first, partial]);
      await store.appendMessage(later);
      const toolId = newToolUseId();
      const complete: Message = {
        ...partial,
        content: [
          { type: 'text', text: 'Let me look.' },
          { type: 'tool_use', id: toolId, name: 'ls', input: {} },
        ],
        metadata: {
          ...partial.metadata,
          status: 'complete',
          routing: {
            mode: 'default',
            chosen_model: MODEL,
            reason: 'd',
            alternatives_considered: [],
          },
          usage: usage(),
        },
        created_at: nowTimestamp(),
      };
      await store.updateMessage(complete);
      const { messages } = await store.loadMessages(session_id);
      expect(messages.map((m) => m.id)).toEqual([first.id, partial.id, later.id]);
      expect(messages[1]).toEqual({ ...complete, created_at: partial.created_at });
      expect((await store.findUnansweredToolCalls(session_id)).map((c) => c.id)).toEqual([toolId]);

      await expect(store.updateMessage(userText(session_id, 'never stored'))).rejects.toThrow(
        MessageNotFoundError,
      );
      // (user content: a user message holding a tool use would be refused for that first)
      await expect(
        store.updateMessage({
          ...complete,
          role: 'user',
          content: [{ type: 'text', text: 'x' }],
        }),
      ).rejects.toThrow(/role: is "assistant" in the store/);
    });

    it('refuses invalid messages, duplicates and unknown sessions, storing nothing', async () => {
      const session_id = await newSession();
      const good = userText(session_id, 'ok');
      await store.appendMessage(good);
      await expect(store.appendMessage(good)).rejects.toThrow(DuplicateMessageError);
      await expect(store.appendMessage(userText('sess_nowhere', 'x'))).rejects.toThrow(
        SessionNotFoundError,
      );
      const invalid = {
        ...userText(session_id, 'x'),
        content: [{ type: 'image', source: { kind: 'ftp', data: '' }, media_type: 'PNG' }],
      } as unknown as Message;
      await expect(store.appendMessage(invalid)).rejects.toThrow(InvalidStoreInputError);
      await expect(store.appendMessage(invalid)).rejects.toThrow(/content\[0\]\.source\.kind/);
      // a batch is all or nothing
      const fresh = userText(session_id, 'fresh');
      await expect(store.appendMessages([fresh, good])).rejects.toThrow(DuplicateMessageError);
      expect((await store.loadMessages(session_id)).messages.map((m) => m.id)).toEqual([good.id]);
    });
  });

  describe('tool calls', () => {
    it('writes one tool_calls row per tool use and marks it answered by the tool message', async () => {
      const session_id = await newSession();
      const assistant = assistantWithTools(session_id, [{ name: 'read_file' }, { name: 'grep' }]);
      const [readId, grepId] = toolUseIds(assistant);
      const map = new ToolIdMap();
      map.set({ canonical_id: readId ?? '', provider: 'anthropic', provider_id: 'toolu_01READ' });
      map.set({ canonical_id: grepId ?? '', provider: 'anthropic', provider_id: 'toolu_01GREP' });
      map.set({ canonical_id: grepId ?? '', provider: 'openai', provider_id: 'call_other' });
      await store.appendMessage(assistant, { toolIdMap: map });

      const calls = await store.listToolCalls(session_id);
      expect(calls).toEqual([
        expect.objectContaining({
          id: readId,
          message_id: assistant.id,
          name: 'read_file',
          status: 'pending',
          provider: 'anthropic',
          provider_id: 'toolu_01READ',
          result_message_id: null,
          completed_at: null,
          created_at: assistant.created_at,
        }),
        expect.objectContaining({ id: grepId, name: 'grep', provider_id: 'toolu_01GREP' }),
      ]);
      expect((await store.findUnansweredToolCalls(session_id)).map((c) => c.id)).toEqual([
        readId,
        grepId,
      ]);

      const ok = toolAnswer(session_id, readId ?? '', 'file contents');
      const failed = toolAnswer(session_id, grepId ?? '', 'grep: no such file', true);
      await store.appendMessage(ok);
      await store.appendMessage(failed);
      expect(await store.findUnansweredToolCalls(session_id)).toEqual([]);
      expect(await store.countFailedToolCalls(session_id)).toBe(1);
      const answered = await store.listToolCalls(session_id);
      expect(answered.map((c) => [c.status, c.result_message_id, c.completed_at])).toEqual([
        ['succeeded', ok.id, ok.created_at],
        ['failed', failed.id, failed.created_at],
      ]);

      const restored = await store.loadToolIdMap(session_id);
      expect(restored.getProviderId('anthropic', readId ?? '')).toBe('toolu_01READ');
      expect(restored.getCanonicalId('anthropic', 'toolu_01GREP')).toBe(grepId);
      expect(restored.size).toBe(2);
    });

    it('marks the tool uses of a cancelled message cancelled', async () => {
      const session_id = await newSession();
      const cancelled = assistantWithTools(session_id, [{ name: 'rm' }], { status: 'cancelled' });
      await store.appendMessage(cancelled);
      expect((await store.listToolCalls(session_id))[0]?.status).toBe('cancelled');

      const partial = assistantWithTools(session_id, [{ name: 'ls' }], { status: 'partial' });
      await store.appendMessage(partial);
      expect((await store.findUnansweredToolCalls(session_id)).map((c) => c.name)).toEqual(['ls']);
      await store.updateMessage({
        ...partial,
        metadata: { ...partial.metadata, status: 'cancelled' },
      });
      expect(await store.findUnansweredToolCalls(session_id)).toEqual([]);
      expect((await store.listToolCalls(session_id)).map((c) => c.status)).toEqual([
        'cancelled',
        'cancelled',
      ]);
    });

    it('counts failed tool calls per session', async () => {
      const a = await newSession();
      const b = await newSession();
      for (const [session, errors] of [
        [a, [true, true, false]],
        [b, [false]],
      ] as const) {
        const assistant = assistantWithTools(
          session,
          errors.map(() => ({ name: 'run' })),
        );
        await store.appendMessage(assistant);
        const ids = toolUseIds(assistant);
        await store.appendMessages(ids.map((id, i) => toolAnswer(session, id, 'out', errors[i])));
      }
      expect(await store.countFailedToolCalls(a)).toBe(2);
      expect(await store.countFailedToolCalls(b)).toBe(0);
    });

    it('warns about a tool result answering no stored call and still stores it', async () => {
      const session_id = await newSession();
      const orphan = toolAnswer(session_id, newToolUseId(), 'late result');
      await store.appendMessage(orphan);
      expect(
        logger
          .warnings()
          .some((w) => w.obj.event === 'tool_result_unmatched' && w.obj.message_id === orphan.id),
      ).toBe(true);
      expect((await store.loadMessages(session_id)).messages).toHaveLength(1);
    });
  });

  describe('transactions', () => {
    it('a failure between the message row and its tool_calls rows leaves neither', async () => {
      const session_id = await newSession();
      const first = assistantWithTools(session_id, [{ name: 'read_file' }]);
      await store.appendMessage(first);
      // The second message's first tool use is fine; its second reuses a stored tool use id.
      const takenId = toolUseIds(first)[0] ?? '';
      const second = assistantWithTools(session_id, [
        { name: 'grep' },
        { id: takenId, name: 'read_file' },
      ]);
      await expect(store.appendMessage(second)).rejects.toThrow(DuplicateToolCallError);
      expect((await store.loadMessages(session_id)).messages.map((m) => m.id)).toEqual([first.id]);
      expect((await store.listToolCalls(session_id)).map((c) => c.id)).toEqual([takenId]);

      // The same with the database itself failing on the tool_calls insert.
      const third = assistantWithTools(session_id, [{ name: 'ls' }]);
      failing.failOn('insert', 'tool_calls');
      await expect(store.appendMessage(third)).rejects.toThrow(/injected failure/);
      failing.reset();
      expect(await store.getMessage(third.id)).toBeNull();
      expect(await store.listToolCalls(session_id)).toHaveLength(1);
    });

    it('a tool message and the answer it records are stored together or not at all', async () => {
      const session_id = await newSession();
      const assistant = assistantWithTools(session_id, [{ name: 'read_file' }]);
      await store.appendMessage(assistant);
      const answer = toolAnswer(session_id, toolUseIds(assistant)[0] ?? '', 'contents');
      failing.failOn('update', 'tool_calls');
      await expect(store.appendMessage(answer)).rejects.toThrow(/injected failure/);
      failing.reset();
      expect(await store.getMessage(answer.id)).toBeNull();
      expect((await store.findUnansweredToolCalls(session_id)).map((c) => c.id)).toEqual(
        toolUseIds(assistant),
      );
      await store.appendMessage(answer); // and it can be retried
      expect(await store.findUnansweredToolCalls(session_id)).toEqual([]);
    });

    it('loses nothing when several store instances append to one session concurrently', async () => {
      const session_id = await newSession();
      const instances = await Promise.all([target.open(), target.open(), target.open()]);
      try {
        const written = await Promise.all(
          instances.map(async (instance, w) => {
            const ids: string[] = [];
            for (let i = 0; i < 40; i++) {
              const m =
                i % 4 === 0
                  ? assistantWithTools(session_id, [{ name: `tool_${w}_${i}` }])
                  : userText(session_id, `${w}:${i}`);
              await instance.appendMessage(m);
              ids.push(m.id);
            }
            return ids;
          }),
        );
        const { messages, errors } = await store.loadMessages(session_id);
        expect(errors).toEqual([]);
        expect(new Set(messages.map((m) => m.id))).toEqual(new Set(written.flat()));
        expect(await store.listToolCalls(session_id)).toHaveLength(3 * 10);
      } finally {
        await Promise.all(instances.map((i) => i.close()));
      }
    });
  });

  describe('reading stored rows', () => {
    it('tolerates unknown block types and metadata fields, never rewriting the row', async () => {
      const session_id = await newSession();
      const message = userText(session_id, 'original');
      await store.appendMessage(message);
      const content = JSON.stringify([
        { type: 'text', text: 'kept' },
        { type: 'audio', data: 'UklGR', media_type: 'audio/wav' },
      ]);
      const metadata = JSON.stringify({ status: 'complete', sentiment: 'happy', user_id: 'u9' });
      await store.db
        .updateTable('messages')
        .set({ content_json: content, metadata_json: metadata })
        .where('id', '=', message.id)
        .execute();

      const before = logger.warnings().length;
      const { messages, errors } = await store.loadMessages(session_id);
      expect(errors).toEqual([]);
      expect(messages[0]?.content).toEqual([{ type: 'text', text: 'kept' }]);
      expect(messages[0]?.metadata).toMatchObject({ sentiment: 'happy', user_id: 'u9' });
      const warnings = logger
        .warnings()
        .slice(before)
        .map((w) => w.obj.path);
      expect(warnings).toEqual(expect.arrayContaining(['content[1]', 'metadata.sentiment']));

      const row = await store.db
        .selectFrom('messages')
        .selectAll()
        .where('id', '=', message.id)
        .executeTakeFirstOrThrow();
      expect([row.content_json, row.metadata_json]).toEqual([content, metadata]);
    });

    it('reports a corrupt row as a typed error naming it, and loads the rest', async () => {
      const session_id = await newSession();
      const messages = [
        userText(session_id, 'one'),
        userText(session_id, 'two'),
        userText(session_id, 'three'),
      ];
      await store.appendMessages(messages);
      const broken = messages[1]?.id ?? '';
      await store.db
        .updateTable('messages')
        .set({ content_json: '[{"type":"text","text":"tw' })
        .where('id', '=', broken)
        .execute();
      const wrongShape = messages[2]?.id ?? '';
      await store.db
        .updateTable('messages')
        .set({ metadata_json: '{"status":"exploded"}' })
        .where('id', '=', wrongShape)
        .execute();

      const loaded = await store.loadMessages(session_id);
      expect(loaded.messages.map((m) => m.id)).toEqual([messages[0]?.id]);
      expect(loaded.errors).toHaveLength(2);
      expect(loaded.errors[0]).toBeInstanceOf(CorruptRowError);
      expect(loaded.errors.map((e) => [e.table, e.rowId])).toEqual([
        ['messages', broken],
        ['messages', wrongShape],
      ]);
      expect(loaded.errors[0]?.message).toContain(`messages row ${broken}`);
      expect(loaded.errors[0]?.message).toContain('content_json is not valid JSON');
      expect(loaded.errors[1]?.message).toContain('metadata.status');

      const page = await store.pageMessages(session_id, { limit: 2 });
      expect([page.messages.length, page.errors.length, page.next_cursor !== null]).toEqual([
        1,
        1,
        true,
      ]);
      const skipped: string[] = [];
      const iterated: string[] = [];
      for await (const m of store.iterateMessages({
        sessionId: session_id,
        onError: (e) => skipped.push(e.rowId),
      })) {
        iterated.push(m.id);
      }
      expect([iterated, skipped]).toEqual([[messages[0]?.id], [broken, wrongShape]]);
      await expect(store.getMessage(broken)).rejects.toThrow(CorruptRowError);
      const raw = await store.db
        .selectFrom('messages')
        .select('content_json')
        .where('id', '=', broken)
        .executeTakeFirstOrThrow();
      expect(raw.content_json).toBe('[{"type":"text","text":"tw');
    });
  });

  describe('usage updates (repricing)', () => {
    it('replaces metadata.usage only, keeping unknown metadata and the content byte for byte', async () => {
      const session_id = await newSession();
      const assistant = assistantWithTools(session_id, [{ name: 'x' }]);
      await store.appendMessage(assistant);
      const extra = JSON.stringify({ ...assistant.metadata, future_field: { kept: [1, 2] } });
      await store.db
        .updateTable('messages')
        .set({ metadata_json: extra })
        .where('id', '=', assistant.id)
        .execute();
      const before = await store.db
        .selectFrom('messages')
        .selectAll()
        .where('id', '=', assistant.id)
        .executeTakeFirstOrThrow();

      const repriced = usage({ cost_usd: '0.0021', pricing_version: 'v2' });
      await store.updateMessageUsage(assistant.id, repriced);

      const after = await store.db
        .selectFrom('messages')
        .selectAll()
        .where('id', '=', assistant.id)
        .executeTakeFirstOrThrow();
      expect({ ...after, metadata_json: '' }).toEqual({ ...before, metadata_json: '' });
      const expected = JSON.parse(before.metadata_json) as Record<string, unknown>;
      expected.usage = repriced;
      expect(JSON.parse(after.metadata_json)).toEqual(expected);

      await expect(store.updateMessageUsage('01NOPE', repriced)).rejects.toThrow(
        MessageNotFoundError,
      );
      await expect(
        store.updateMessageUsage(assistant.id, { ...repriced, cost_usd: 'free' }),
      ).rejects.toThrow(/usage\.cost_usd/);
    });

    it('reprices stored history with @yourtool/pricing, touching nothing else in the rows', async () => {
      const session_id = await newSession();
      const stale = usage({ cost_usd: '1', pricing_version: 'stale' });
      const priced = [
        assistantWithTools(session_id, [{ name: 'a' }], { usage: stale }),
        assistantWithTools(session_id, [{ name: 'b' }], {
          usage: { ...stale, cached_input_tokens: 1000 },
        }),
      ];
      const unpriced = assistantWithTools(session_id, [{ name: 'c' }], {
        model: 'acme:private',
        provider: 'acme',
        routing: {
          mode: 'default',
          chosen_model: 'acme:private',
          reason: 'default',
          alternatives_considered: [],
        },
        usage: stale,
      });
      const all = [userText(session_id, 'q'), ...priced, unpriced];
      await store.appendMessages(all);
      const rowsOf = async () =>
        store.db
          .selectFrom('messages')
          .selectAll()
          .where('session_id', '=', session_id)
          .orderBy('created_at')
          .execute();
      const before = await rowsOf();

      const table = defaultPriceTable();
      const report = await repriceMessages(store, { table, sessionId: session_id });
      // 812×3 + 64×15 = 3396 µ$; with 1000 cache reads: + 1000×0.30 = 3696 µ$
      expect(report).toMatchObject({
        scanned: 3,
        repriced: 2,
        cost_before_usd: '2',
        cost_after_usd: '0.007092',
        unpriced: [expect.objectContaining({ message_id: unpriced.id, reason: 'unknown_model' })],
      });
      const after = await rowsOf();
      expect(after.map((r) => r.content_json)).toEqual(before.map((r) => r.content_json));
      expect(after.map((r) => [r.id, r.role, r.created_at, r.schema_version])).toEqual(
        before.map((r) => [r.id, r.role, r.created_at, r.schema_version]),
      );
      for (const [i, row] of after.entries()) {
        const was = JSON.parse(before[i]?.metadata_json ?? '{}') as {
          usage?: Record<string, unknown>;
        };
        const now = JSON.parse(row.metadata_json) as { usage?: Record<string, unknown> };
        expect({ ...now, usage: null }).toEqual({ ...was, usage: null });
        const repriced = priced.findIndex((m) => m.id === row.id);
        if (repriced >= 0) {
          expect(now.usage).toEqual({
            ...was.usage,
            cost_usd: ['0.003396', '0.003696'][repriced],
            pricing_version: table.pricing_version,
          });
        } else {
          expect(now.usage).toEqual(was.usage);
        }
      }
      expect(await repriceMessages(store, { table, sessionId: session_id })).toMatchObject({
        repriced: 0,
        unchanged: 2,
      });
    });

    it('iterates by role across sessions for repricing', async () => {
      const session_id = await newSession();
      const assistant = assistantWithTools(session_id, [{ name: 'x' }]);
      await store.appendMessages([userText(session_id, 'q'), assistant]);
      const roles = new Set<string>();
      let found = false;
      for await (const m of store.iterateMessages({ role: 'assistant', batchSize: 50 })) {
        roles.add(m.role);
        if (m.id === assistant.id) found = true;
      }
      expect([...roles]).toEqual(['assistant']);
      expect(found).toBe(true);
    });
  });

  describe('revision (decision 0103)', () => {
    it('rises by one with every write to the messages, and with nothing else', async () => {
      const session_id = await newSession();
      const revision = async () => (await store.getSession(session_id))?.revision;
      expect(await revision()).toBe(0);

      const user = userText(session_id, 'hello');
      await store.appendMessage(user);
      expect(await revision()).toBe(1);
      const assistant = assistantWithTools(session_id, [{ name: 'read_file' }]);
      const answers = toolUseIds(assistant).map((id) => toolAnswer(session_id, id, 'ok'));
      await store.appendMessages([assistant, ...answers]);
      expect(await revision()).toBe(2);
      await store.updateMessage({
        ...user,
        content: [{ type: 'text', text: 'hello again' }],
      });
      expect(await revision()).toBe(3);
      // repricing changes what a reader holding the history must see, but not updated_at
      const before = await store.getSession(session_id);
      await store.updateMessageUsage(
        assistant.id,
        usage({ cost_usd: '0.0042', pricing_version: 'v9' }),
      );
      const after = await store.getSession(session_id);
      expect(after?.revision).toBe(4);
      expect(after?.updated_at).toBe(before?.updated_at);

      // a session patch and a refused write leave it alone
      await store.updateSession(session_id, { active_model: MODEL });
      await expect(store.appendMessage(user)).rejects.toThrow(DuplicateMessageError);
      expect(await revision()).toBe(4);
      // the revision of one session is its own
      const other = await newSession();
      await store.appendMessage(userText(other, 'elsewhere'));
      expect(await revision()).toBe(4);
      expect((await store.getSession(other))?.revision).toBe(1);
      const listed = await store.listSessions({ limit: 100 });
      expect(listed.sessions.find((s) => s.id === session_id)?.revision).toBe(4);
    });
  });

  describe('schema', () => {
    it('has exactly the tables and indexes of canonical-format §10, and migrations are idempotent', async () => {
      const again = await target.open();
      expect((await again.migrate()).applied).toEqual([]);
      await again.close();
      const tables = (await store.db.introspection.getTables())
        .filter((t) => t.schema === store.schema || store.schema === undefined)
        .map((t) => t.name)
        .sort();
      // the canonical tables, tool approvals (0177), budgets (0181), shared availability (0183)
      expect(tables).toEqual([
        'availability',
        'budget_reservations',
        'budget_windows',
        'budgets',
        'messages',
        'sessions',
        'tool_approvals',
        'tool_calls',
      ]);
      const messages = (await store.db.introspection.getTables()).find(
        (t) => t.name === 'messages' && (store.schema === undefined || t.schema === store.schema),
      );
      expect(messages?.columns.map((c) => [c.name, c.dataType.toLowerCase()])).toEqual([
        ['id', 'text'],
        ['session_id', 'text'],
        ['role', 'text'],
        ['content_json', 'text'],
        ['metadata_json', 'text'],
        ['created_at', store.dialect === 'postgres' ? 'int8' : 'integer'],
        ['schema_version', store.dialect === 'postgres' ? 'int4' : 'integer'],
      ]);
      const indexes =
        store.dialect === 'sqlite'
          ? await sql<{
              name: string;
            }>`select name from sqlite_master where type = 'index' and name like 'idx_%' order by name`.execute(
              store.db,
            )
          : await sql<{
              name: string;
            }>`select indexname as name from pg_indexes where schemaname = ${store.schema} and indexname like 'idx_%' order by indexname`.execute(
              store.db,
            );
      expect(indexes.rows.map((r) => r.name)).toEqual([
        'idx_budget_reservations_open',
        'idx_messages_session_created',
        'idx_tool_calls_session_status',
      ]);
    });

    it("satisfies core's SessionStore interface", () => {
      const asInterface: SessionStore = store;
      expect(typeof asInterface.iterateMessages).toBe('function');
    });
  });
});
