import { createMessage, type Message, newToolUseId, toolResultBlock } from '@yourtool/core';
import { DEFAULT_MAX_JSON_DEPTH } from '@yourtool/core/adapter';
import { type KyselyPlugin, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  InvalidMessageError,
  InvalidStoreInputError,
  JsonTooDeepError,
  openStore,
  type SqlSessionStore,
  StoreDriverError,
  StoreError,
} from '../src/index.js';
import { assistantWithTools, MODEL, toolAnswer, usage, userText } from './helpers/messages.js';
import { POSTGRES_URL, postgresTarget, type Target, targets } from './helpers/targets.js';

/** `levels` objects nested in one another (`{ a: { a: ... } }`). */
function nest(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: true };
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
}

/** The error a promise rejects with (fails the test when it resolves). */
async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the call to fail');
}

describe.each(targets())('reliability on $name', ({ make }) => {
  const target: Target = make();
  let store: SqlSessionStore;

  beforeAll(async () => {
    store = await target.open();
  });
  afterAll(async () => {
    await store?.close();
    await target.dispose();
  });

  /** Every stored row of a session, raw: the session row, its messages and tool calls. */
  async function snapshot(sessionId: string) {
    const session = await store.db
      .selectFrom('sessions')
      .selectAll()
      .where('id', '=', sessionId)
      .executeTakeFirst();
    const messages = await store.db
      .selectFrom('messages')
      .selectAll()
      .where('session_id', '=', sessionId)
      .orderBy('id')
      .execute();
    const toolCalls = await store.db
      .selectFrom('tool_calls')
      .selectAll()
      .where('session_id', '=', sessionId)
      .orderBy('id')
      .execute();
    return { session, messages, toolCalls };
  }

  /** A session holding a user message and an answered tool call, to prove it stays as it is. */
  async function populatedSession(): Promise<string> {
    const sessionId = (await store.createSession({ workspace_path: '/work/reliability' })).id;
    const assistant = assistantWithTools(sessionId, [{ name: 'read_file' }]);
    const toolUseId = assistant.content.find((b) => b.type === 'tool_use')?.id ?? '';
    await store.appendMessages([
      userText(sessionId, 'hello'),
      assistant,
      toolAnswer(sessionId, toolUseId, 'contents'),
      assistantWithTools(sessionId, [{ name: 'grep' }]),
    ]);
    return sessionId;
  }

  describe('canonical invariants of complete messages', () => {
    const broken: Array<{
      name: string;
      rule: string;
      build: (sessionId: string) => Message;
    }> = [
      {
        name: 'a tool message without parent_tool_use_id',
        rule: 'tool-parent-id',
        build: (session_id) =>
          createMessage({
            session_id,
            role: 'tool',
            content: [toolResultBlock(newToolUseId(), 'orphan')],
          }),
      },
      {
        name: 'a complete assistant message without usage',
        rule: 'assistant-usage',
        build: (session_id) =>
          assistantWithTools(session_id, [{ name: 'read_file' }], { usage: null }),
      },
      {
        name: 'a complete assistant message without model and provider',
        rule: 'assistant-model-provider',
        build: (session_id) =>
          assistantWithTools(session_id, [{ name: 'ls' }], { model: null, provider: null }),
      },
      {
        name: 'a complete assistant message without routing',
        rule: 'assistant-routing',
        build: (session_id) => assistantWithTools(session_id, [{ name: 'ls' }], { routing: null }),
      },
      {
        name: 'a user message holding a tool use',
        rule: 'role-block-allowed',
        build: (session_id) =>
          createMessage({
            session_id,
            role: 'user',
            content: [{ type: 'tool_use', id: newToolUseId(), name: 'rm', input: {} }],
          }),
      },
      {
        name: 'a message whose id is not a ULID',
        rule: 'message-id-ulid',
        build: (session_id) =>
          createMessage({
            session_id,
            role: 'user',
            content: [{ type: 'text', text: 'hi' }],
            id: 'msg-1',
          }),
      },
      {
        name: 'a message of a future schema version',
        rule: 'schema-version',
        build: (session_id) => ({ ...userText(session_id, 'from the future'), schema_version: 2 }),
      },
    ];

    it.each(broken)(
      'refuses $name, naming the rule and the message, storing nothing',
      async ({ rule, build }) => {
        const sessionId = await populatedSession();
        const before = await snapshot(sessionId);
        const message = build(sessionId);

        const error = await rejection(store.appendMessage(message));
        expect(error).toBeInstanceOf(InvalidMessageError);
        expect(error).toBeInstanceOf(InvalidStoreInputError);
        expect(error).toBeInstanceOf(StoreError);
        expect(error.message).toContain(message.id);
        expect(error.message).toContain(rule);
        const typed = error as InvalidMessageError;
        expect(typed.code).toBe('invalid_message');
        expect(typed.messageId).toBe(message.id);
        expect(typed.violations.map((v) => v.rule)).toContain(rule);

        // in a batch with valid messages: the whole batch is refused
        const batchError = await rejection(
          store.appendMessages([userText(sessionId, 'fine'), message]),
        );
        expect(batchError).toBeInstanceOf(InvalidMessageError);
        expect(await snapshot(sessionId)).toEqual(before);
      },
    );

    it('names every rule a message breaks', async () => {
      const sessionId = await populatedSession();
      const message = assistantWithTools(sessionId, [{ name: 'ls' }], {
        usage: null,
        routing: null,
      });
      const error = await rejection(store.appendMessage(message));
      expect(error.message).toMatch(/assistant-routing[\s\S]*assistant-usage/);
    });

    it('keeps accepting partial messages, which may break them until complete', async () => {
      const sessionId = await populatedSession();
      const streaming = createMessage({
        session_id: sessionId,
        role: 'assistant',
        content: [],
        metadata: { status: 'partial' },
      });
      const partialTool = createMessage({
        session_id: sessionId,
        role: 'tool',
        content: [],
        metadata: { status: 'partial' },
      });
      await store.appendMessages([streaming, partialTool]);
      expect((await store.getMessage(streaming.id))?.metadata.status).toBe('partial');
      // cancelled and errored messages may break the complete-only rules as well
      const cancelled = assistantWithTools(sessionId, [{ name: 'ls' }], {
        status: 'cancelled',
        usage: null,
      });
      await store.appendMessage(cancelled);
      expect(await store.getMessage(cancelled.id)).toEqual(cancelled);
    });

    it('refuses an update that makes a message complete but breaks an invariant, keeping the row', async () => {
      const sessionId = await populatedSession();
      const partial = createMessage({
        session_id: sessionId,
        role: 'assistant',
        content: [{ type: 'text', text: 'Let me' }],
        metadata: { status: 'partial', model: MODEL, provider: 'anthropic' },
      });
      await store.appendMessage(partial);
      const before = await snapshot(sessionId);
      const toolUseId = newToolUseId();
      const completeWithoutUsage: Message = {
        ...partial,
        content: [
          { type: 'text', text: 'Let me look.' },
          { type: 'tool_use', id: toolUseId, name: 'ls', input: {} },
        ],
        metadata: {
          ...partial.metadata,
          status: 'complete',
          routing: {
            mode: 'default',
            chosen_model: MODEL,
            reason: 'default',
            alternatives_considered: [],
          },
        },
      };
      const error = await rejection(store.updateMessage(completeWithoutUsage));
      expect(error).toBeInstanceOf(InvalidMessageError);
      expect(error.message).toContain('assistant-usage');
      expect(error.message).toContain(partial.id);
      expect(await snapshot(sessionId)).toEqual(before);

      await store.updateMessage({
        ...completeWithoutUsage,
        metadata: { ...completeWithoutUsage.metadata, usage: usage() },
      });
      expect((await store.getMessage(partial.id))?.metadata.status).toBe('complete');
    });

    it('refuses a repricing that leaves a complete message with a cost but no pricing version', async () => {
      const sessionId = await populatedSession();
      const assistant = assistantWithTools(sessionId, [{ name: 'ls' }]);
      await store.appendMessage(assistant);
      const before = await snapshot(sessionId);
      const error = await rejection(
        store.updateMessageUsage(assistant.id, usage({ cost_usd: '0.5', pricing_version: null })),
      );
      expect(error).toBeInstanceOf(InvalidMessageError);
      expect(error.message).toContain('usage-pricing-version');
      expect(await snapshot(sessionId)).toEqual(before);
    });
  });

  describe('deeply nested JSON', () => {
    it('refuses a tool input nested 5,000 levels deep with a typed error, storing nothing', async () => {
      const sessionId = await populatedSession();
      const before = await snapshot(sessionId);
      const message = assistantWithTools(sessionId, [{ name: 'deep', input: nest(5000) }]);
      const error = await rejection(store.appendMessage(message));
      expect(error).toBeInstanceOf(JsonTooDeepError);
      expect(error).toBeInstanceOf(StoreError);
      expect(error.message).toContain(message.id);
      expect(error.message).toContain(`${DEFAULT_MAX_JSON_DEPTH} levels`);
      expect(error.message).toContain('content[1].input.a.a');
      const typed = error as JsonTooDeepError;
      expect(typed.code).toBe('json_too_deep');
      expect(typed.maxDepth).toBe(DEFAULT_MAX_JSON_DEPTH);
      expect(typed.segments.slice(0, 3)).toEqual(['content', 1, 'input']);
      expect(await snapshot(sessionId)).toEqual(before);
    });

    it('leaves a partial row exactly as it was when completing it with a too deep input fails', async () => {
      const sessionId = await populatedSession();
      const partial = assistantWithTools(sessionId, [{ name: 'deep', input: {} }], {
        status: 'partial',
      });
      await store.appendMessage(partial);
      const before = await snapshot(sessionId);
      const deep: Message = {
        ...partial,
        content: partial.content.map((b) =>
          b.type === 'tool_use' ? { ...b, input: nest(5000) } : b,
        ),
        metadata: { ...partial.metadata, status: 'complete' },
      };
      const error = await rejection(store.updateMessage(deep));
      expect(error).toBeInstanceOf(JsonTooDeepError);
      expect(error.message).toContain(partial.id);
      expect(await snapshot(sessionId)).toEqual(before);
    });

    it('stores the deepest message the limit allows and reads it back', async () => {
      const sessionId = await populatedSession();
      // message (1) > content (2) > block (3) > input (4 ...): the input may nest MAX - 3 levels
      const deepest = assistantWithTools(sessionId, [
        { name: 'deep', input: nest(DEFAULT_MAX_JSON_DEPTH - 3) },
      ]);
      await store.appendMessage(deepest);
      expect(await store.getMessage(deepest.id)).toEqual(deepest);
      const tooDeep = assistantWithTools(sessionId, [
        { name: 'deep', input: nest(DEFAULT_MAX_JSON_DEPTH - 2) },
      ]);
      await expect(store.appendMessage(tooDeep)).rejects.toThrow(JsonTooDeepError);
    });

    it('checks metadata and routing policies the same way', async () => {
      const sessionId = await populatedSession();
      const message = createMessage({
        session_id: sessionId,
        role: 'user',
        content: [{ type: 'text', text: 'hi' }],
        metadata: { status: 'partial', provider_raw: nest(5000) },
      });
      await expect(store.appendMessage(message)).rejects.toThrow(/metadata\.provider_raw\.a/);
      const error = await rejection(
        store.createSession({ workspace_path: '/w', routing_policy: nest(5000) }),
      );
      expect(error).toBeInstanceOf(JsonTooDeepError);
      expect(error.message).toContain('routing_policy');
      const before = await snapshot(sessionId);
      await expect(store.updateSession(sessionId, { routing_policy: nest(5000) })).rejects.toThrow(
        JsonTooDeepError,
      );
      expect(await snapshot(sessionId)).toEqual(before);
    });

    it('refuses values JSON cannot hold (a BigInt) with a typed error, storing nothing', async () => {
      const sessionId = await populatedSession();
      const before = await snapshot(sessionId);
      const message = assistantWithTools(sessionId, [{ name: 'big', input: { n: 10n } }]);
      const error = await rejection(store.appendMessage(message));
      expect(error).toBeInstanceOf(InvalidStoreInputError);
      expect(error.message).toContain(message.id);
      expect(error.message).toContain('BigInt');
      expect(await snapshot(sessionId)).toEqual(before);
    });
  });

  describe('text the database cannot hold', () => {
    it('refuses a NUL character in a workspace path, naming the field', async () => {
      const error = await rejection(store.createSession({ workspace_path: '/work/a\u0000b' }));
      expect(error).toBeInstanceOf(InvalidStoreInputError);
      expect(error.message).toContain('workspace_path');
      expect(error.message).toContain('NUL');
      const sessionId = await populatedSession();
      const before = await snapshot(sessionId);
      await expect(
        store.updateSession(sessionId, { workspace_path: '/work/\u0000' }),
      ).rejects.toThrow(/workspace_path: .*NUL/);
      expect(await snapshot(sessionId)).toEqual(before);
    });

    it('refuses a NUL character in a tool name or tool use id, even in a partial message', async () => {
      const sessionId = await populatedSession();
      const before = await snapshot(sessionId);
      const badName = assistantWithTools(sessionId, [{ name: 'read\u0000file' }], {
        status: 'partial',
      });
      const error = await rejection(store.appendMessage(badName));
      expect(error).toBeInstanceOf(InvalidStoreInputError);
      expect(error.message).toContain(badName.id);
      expect(error.message).toMatch(/content\[1\]\.name: .*NUL/);
      const badId = assistantWithTools(sessionId, [{ id: 'tu_\u0000', name: 'ls' }], {
        status: 'partial',
      });
      await expect(store.appendMessage(badId)).rejects.toThrow(/content\[1\]\.id: .*NUL/);
      const answer = createMessage({
        session_id: sessionId,
        role: 'tool',
        content: [toolResultBlock('tu_\u0000', 'x')],
        metadata: { parent_tool_use_id: 'tu_\u0000' },
      });
      await expect(store.appendMessage(answer)).rejects.toThrow(/tool_use_id: .*NUL/);
      expect(await snapshot(sessionId)).toEqual(before);
    });

    it('refuses text that is not well-formed Unicode (a lone surrogate) in a text column', async () => {
      await expect(store.createSession({ workspace_path: '/work/\ud800' })).rejects.toThrow(
        /workspace_path: .*surrogate/,
      );
    });

    it('refuses a NUL character in ids it is asked to read', async () => {
      await expect(store.getSession('sess_\u0000')).rejects.toThrow(InvalidStoreInputError);
      await expect(store.getMessage('01\u0000')).rejects.toThrow(InvalidStoreInputError);
      await expect(store.loadMessages('sess_\u0000')).rejects.toThrow(InvalidStoreInputError);
      await expect(store.listSessions({ workspace_path: '\u0000' })).rejects.toThrow(
        InvalidStoreInputError,
      );
    });

    it('still stores NUL characters inside message text, where JSON escapes them', async () => {
      const sessionId = await populatedSession();
      const message = userText(sessionId, 'a\u0000b');
      await store.appendMessage(message);
      expect(await store.getMessage(message.id)).toEqual(message);
    });
  });

  describe('driver errors', () => {
    it('surface as StoreDriverError with the driver code and the original as cause', async () => {
      const broken = make();
      const other = await broken.open();
      try {
        const sessionId = (await other.createSession({ workspace_path: '/w' })).id;
        await sql`drop table tool_calls`.execute(other.db);
        const error = await rejection(other.listToolCalls(sessionId));
        expect(error).toBeInstanceOf(StoreDriverError);
        expect(error).toBeInstanceOf(StoreError);
        const typed = error as StoreDriverError;
        expect(typed.code).toBe('store_driver_error');
        expect(typed.operation).toBe('listToolCalls');
        expect(typed.driverCode).toBe(broken.name === 'postgres' ? '42P01' : 'SQLITE_ERROR');
        expect(typed.cause).toBeInstanceOf(Error);
        expect(error.message).toMatch(/listToolCalls failed: .*tool_calls/);
        // the same for writes: a transaction failing half-way
        const write = await rejection(
          other.appendMessage(assistantWithTools(sessionId, [{ name: 'ls' }])),
        );
        expect(write).toBeInstanceOf(StoreDriverError);
        expect((await other.loadMessages(sessionId)).messages).toEqual([]);
      } finally {
        await other.close();
        await broken.dispose();
      }
    });
  });
});

describe('driver errors on PostgreSQL', () => {
  it('never show the connection password, in the message or the cause', async () => {
    const target = postgresTarget();
    const password = 'hunter2-s3cret';
    const url = POSTGRES_URL.replace('postgres://postgres@', `postgres://postgres:${password}@`);
    // A driver that echoes its connection string in an error, as some do on connect failures.
    const echo: KyselyPlugin = {
      transformQuery(args) {
        const node = args.node as { kind: string; from?: unknown };
        if (node.kind === 'SelectQueryNode' && JSON.stringify(node.from).includes('tool_calls')) {
          throw Object.assign(new Error(`could not reach ${url}`), { code: '08006' });
        }
        return args.node;
      },
      async transformResult(args) {
        return args.result;
      },
    };
    const store = await openStore(url, { schema: target.schema, plugins: [echo] });
    try {
      const sessionId = (await store.createSession({ workspace_path: '/w' })).id;
      const error = await rejection(store.listToolCalls(sessionId));
      expect(error).toBeInstanceOf(StoreDriverError);
      expect((error as StoreDriverError).driverCode).toBe('08006');
      expect(error.message).toMatch(/^listToolCalls failed: could not reach/);
      expect(error.message).not.toContain(password);
      const cause = (error as StoreDriverError).cause as Error & { code?: string };
      expect(cause.message).not.toContain(password);
      expect(cause.code).toBe('08006');
    } finally {
      await store.close();
      await target.dispose();
    }
  });
});
