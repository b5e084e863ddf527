import { type ScriptedProvider, startScriptedProvider, text, toolCall } from '@yourtool/testing';
import * as ai7 from 'ai';
import * as ai6 from 'ai6';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readChatRequest, replyIdFor, UI_STREAM_HEADERS, userIdOfReply } from '../src/index.js';
import { MAJORS, post, startInstance, userMessage } from './helpers.js';

let provider: ScriptedProvider;
beforeAll(async () => {
  provider = await startScriptedProvider();
});
afterEach(() => provider.clear());
afterAll(() => provider.close());

describe.each(MAJORS)('stored history as useChat messages ($protocol)', ({ protocol, sdk }) => {
  it("keeps the stored ids, passes the SDK's validateUIMessages, and matches what was streamed", async () => {
    const c = await startInstance({ provider, protocol });
    const session = await c.runtime.sessions.createSession({ workspace_path: '/w' });
    const url = `${c.url}?session=${session.id}`;
    provider.reply(toolCall('lookup', { word: 'hi' })).reply(text('Done.'));
    const live = await post(sdk, url, [userMessage('Look hi up')]);
    provider.reply(toolCall('save_note', { text: 'x' })).reply(text('Not saved.'));
    const asked = await post(sdk, url, [userMessage('Save x')]);
    const reply = structuredClone(asked.message);
    for (const p of reply.parts) {
      if (p.type === 'dynamic-tool')
        Object.assign(p, {
          state: 'approval-responded',
          approval: { id: p.toolCallId, approved: false },
        });
    }
    await post(sdk, url, [userMessage('Save x'), reply], { continuing: reply });

    const history = await c.bridge.history(session.id);
    const validated = await sdk.validateUIMessages({ messages: history });
    expect(validated).toHaveLength(4);
    const stored = await c.runtime.sessions.history(session.id);
    const users = stored.filter(
      (m) => m.role === 'user' && m.content.some((b) => b.type === 'text'),
    );
    expect(history.map((m) => m.id)).toEqual([
      users[0]?.id,
      replyIdFor(users[0]?.id ?? ''),
      users[1]?.id,
      replyIdFor(users[1]?.id ?? ''),
    ]);
    expect(history[1]?.id).toBe(live.message.id);
    expect(history[1]?.parts).toEqual(
      live.message.parts.map((p) => (p.type === 'reasoning' ? { ...p, id: undefined } : p)),
    );
    expect(history[3]?.parts).toMatchObject([
      { type: 'step-start' },
      { type: 'dynamic-tool', toolName: 'save_note', state: 'output-denied' },
      { type: 'step-start' },
      { type: 'text', text: 'Not saved.' },
    ]);
    expect(history[3]?.metadata).toMatchObject({ model: 'anthropic:claude-sonnet-4-6' });
  });
});

describe('a useChat request', () => {
  it("answers with the headers of each major's own UI message stream responses", () => {
    expect(UI_STREAM_HEADERS).toEqual(ai7.UI_MESSAGE_STREAM_HEADERS);
    expect(UI_STREAM_HEADERS).toEqual(ai6.UI_MESSAGE_STREAM_HEADERS);
  });

  it('takes only the last user message of the history it carries', () => {
    const body = {
      id: 'c',
      trigger: 'submit-message',
      messages: [userMessage('old'), userMessage('new one')],
    };
    expect(readChatRequest(body)).toEqual({ kind: 'message', chatId: 'c', text: 'new one' });
  });

  it('names the field at fault', () => {
    const file = {
      id: 'u',
      role: 'user',
      parts: [{ type: 'file', url: 'data:,x', mediaType: 'text/plain' }],
    };
    expect(() => readChatRequest({ messages: [file] })).toThrow(
      'messages[0].parts[0].type: only text parts are taken, got "file"',
    );
    expect(() => readChatRequest({ messages: [] })).toThrow('messages: expected a non-empty array');
    expect(() => readChatRequest({ messages: [{ role: 'system', parts: [] }] })).toThrow(
      'messages[0].role',
    );
    const bad = {
      id: 'a',
      role: 'assistant',
      parts: [
        {
          type: 'dynamic-tool',
          state: 'approval-responded',
          approval: { id: 'tu_1', approved: 'yes' },
        },
      ],
    };
    expect(() => readChatRequest({ messages: [bad] })).toThrow(
      'messages[0].parts[0].approval.approved: expected a boolean',
    );
    expect(() => readChatRequest('nope')).toThrow('body: expected a JSON object');
  });

  it('refuses a regenerate with 409, naming the stored message the reply answered', async () => {
    const c = await startInstance({ provider });
    const session = await c.runtime.sessions.createSession({ workspace_path: '/w' });
    const response = await fetch(`${c.url}?session=${session.id}`, {
      method: 'POST',
      body: JSON.stringify({
        id: 'c',
        trigger: 'regenerate-message',
        messageId: replyIdFor('01ABC'),
        messages: [],
      }),
    });
    expect(response.status).toBe(409);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('regenerate_refused');
    expect(body.error.message).toContain('it answers the stored user message 01ABC');
    expect(userIdOfReply('plain')).toBeNull();
  });

  it('answers a bad body with 400 and the SSE headers with a turn', async () => {
    const c = await startInstance({ provider });
    const session = await c.runtime.sessions.createSession({ workspace_path: '/w' });
    const url = `${c.url}?session=${session.id}`;
    const bad = await fetch(url, { method: 'POST', body: '{"messages": 3}' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      error: {
        code: 'invalid_chat_request',
        message: 'messages: expected a non-empty array of UI messages',
      },
    });
    provider.reply(text('Hi.'));
    const ok = await fetch(url, {
      method: 'POST',
      body: JSON.stringify({ messages: [userMessage('Hi')] }),
    });
    expect(ok.headers.get('content-type')).toBe('text/event-stream');
    expect(ok.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    const body = await ok.text();
    expect(body.startsWith('data: {"type":"start"')).toBe(true);
    expect(body.endsWith('data: [DONE]\n\n')).toBe(true);
  });
});
