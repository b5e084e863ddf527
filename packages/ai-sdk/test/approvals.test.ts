import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TurnInProgressError } from '@yourtool/session';
import { SqlApprovalStore, type SqlSessionStore } from '@yourtool/store';
import { type ScriptedProvider, startScriptedProvider, text, toolCall } from '@yourtool/testing';
import type { UIMessage } from 'ai';
import * as ai7 from 'ai';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { MemoryApprovalStore } from '../src/index.js';
import { post, type Sdk, startInstance, userMessage } from './helpers.js';

const sdk = ai7 as unknown as Sdk;
let provider: ScriptedProvider;
beforeAll(async () => {
  provider = await startScriptedProvider();
});
afterEach(() => provider.clear());
afterAll(() => provider.close());

function approve(message: UIMessage): UIMessage {
  const copy = structuredClone(message);
  for (const p of copy.parts) {
    if (p.type === 'dynamic-tool' && p.state === 'approval-requested')
      Object.assign(p, {
        state: 'approval-responded',
        approval: { id: p.toolCallId, approved: true },
      });
  }
  return copy;
}

describe('approvals across requests and instances (decision 0177)', () => {
  it('an answer posted to another instance reaches the waiting turn through the store, which keeps the session meanwhile', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ai-sdk-approvals-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const store = `sqlite:${join(dir, 'chat.db')}`;
    const turnLease = { ttlMs: 400, heartbeatMs: 100 };
    // the instances share approvals the way they share sessions: through the database
    const a = await startInstance({
      provider,
      store,
      turnLease,
      approvals: await sqlApprovals(store),
    });
    const b = await startInstance({
      provider,
      store,
      turnLease,
      approvals: await sqlApprovals(store),
    });
    const session = await a.runtime.sessions.createSession({ workspace_path: '/w' });
    provider.reply(toolCall('save_note', { text: 'x' })).reply(text('Saved.'));
    const asked = await post(sdk, `${a.url}?session=${session.id}`, [userMessage('Save x')]);
    expect(asked.message.parts.at(-1)).toMatchObject({ state: 'approval-requested' });

    // three lease lifetimes later the waiting turn still holds the session: B cannot start one
    await new Promise((resolve) => setTimeout(resolve, 1200));
    const other = b.runtime.sessions.send(session.id, 'Hello?');
    await expect(other.next()).rejects.toBeInstanceOf(TurnInProgressError);

    const reply = approve(asked.message);
    const rest = await post(sdk, `${b.url}?session=${session.id}`, [userMessage('Save x'), reply], {
      continuing: reply,
    });
    expect(a.saved).toEqual(['x']);
    expect(b.saved).toEqual([]);
    expect(rest.message.id).toBe(asked.message.id);
    expect(rest.message.parts).toMatchObject([
      { type: 'step-start' },
      {
        type: 'dynamic-tool',
        toolName: 'save_note',
        state: 'output-available',
        output: 'saved "x"',
      },
      { type: 'step-start' },
      { type: 'text', text: 'Saved.' },
    ]);
    expect(rest.chunks.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
  });

  it('a second approval asked while another instance tails the turn ends its response; the answer at the first streams live', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ai-sdk-approvals-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const store = `sqlite:${join(dir, 'chat.db')}`;
    const a = await startInstance({ provider, store, approvals: await sqlApprovals(store) });
    const b = await startInstance({ provider, store, approvals: await sqlApprovals(store) });
    const session = await a.runtime.sessions.createSession({ workspace_path: '/w' });
    provider
      .reply(toolCall('save_note', { text: 'one' }))
      .reply(toolCall('save_note', { text: 'two' }))
      .reply(text('Both saved.'));
    const first = await post(sdk, `${a.url}?session=${session.id}`, [userMessage('Save two')]);
    const once = approve(first.message);
    const second = await post(
      sdk,
      `${b.url}?session=${session.id}`,
      [userMessage('Save two'), once],
      { continuing: once },
    );
    expect(second.chunks.at(-1)).toMatchObject({ type: 'finish', finishReason: 'tool-calls' });
    const tools = second.message.parts.filter((p) => p.type === 'dynamic-tool');
    expect(tools).toMatchObject([
      { state: 'output-available', output: 'saved "one"' },
      { state: 'approval-requested', input: { text: 'two' } },
    ]);
    const twice = approve(second.message);
    const third = await post(
      sdk,
      `${a.url}?session=${session.id}`,
      [userMessage('Save two'), twice],
      { continuing: twice },
    );
    expect(third.message.parts.at(-1)).toMatchObject({ type: 'text', text: 'Both saved.' });
    expect(a.saved).toEqual(['one', 'two']);
  });

  it('a message sent while a turn waits for its approval is refused, and the approval still streams live', async () => {
    const c = await startInstance({ provider });
    const session = await c.runtime.sessions.createSession({ workspace_path: '/w' });
    const url = `${c.url}?session=${session.id}`;
    provider.reply(toolCall('save_note', { text: 'x' })).reply(text('Saved.'));
    const asked = await post(sdk, url, [userMessage('Save x')]);
    const refused = await fetch(url, {
      method: 'POST',
      body: JSON.stringify({
        messages: [userMessage('Save x'), asked.message, userMessage('Hurry')],
      }),
    });
    expect(await refused.text()).toBe(
      'data: {"type":"error","errorText":"This chat has a turn running (maybe waiting for a tool approval); answer it or wait."}\n\ndata: [DONE]\n\n',
    );
    const reply = approve(asked.message);
    const rest = await post(sdk, url, [userMessage('Save x'), reply], { continuing: reply });
    // live, token by token: the continuation has the text's start, delta and end chunks
    expect(rest.chunks.map((chunk) => chunk.type)).toContain('text-delta');
    expect(rest.message.parts.at(-1)).toMatchObject({ type: 'text', text: 'Saved.' });
    expect(c.saved).toEqual(['x']);
  });

  it('past the deadline the tool is reported not run, and a late answer is refused', async () => {
    const approvals = new MemoryApprovalStore();
    const c = await startInstance({ provider, approvals, approvalDeadlineMs: 300 });
    const session = await c.runtime.sessions.createSession({ workspace_path: '/w' });
    provider.reply(toolCall('save_note', { text: 'x' })).reply(text('It was not saved.'));
    const asked = await post(sdk, `${c.url}?session=${session.id}`, [userMessage('Save x')]);
    await expect
      .poll(async () => (await c.runtime.sessions.history(session.id)).at(-1)?.content[0], {
        timeout: 5000,
      })
      .toEqual({ type: 'text', text: 'It was not saved.' });
    const stored = await c.runtime.sessions.history(session.id);
    const result = stored.find((m) => m.content.some((b) => b.type === 'tool_result'))?.content[0];
    expect(result).toMatchObject({ type: 'tool_result', is_error: true });
    expect(JSON.stringify(result)).toContain(
      'no answer to the approval of save_note within 300 ms), so it was not run',
    );
    expect(c.saved).toEqual([]);
    const id = (asked.message.parts.at(-1) as { toolCallId: string }).toolCallId;
    expect((await approvals.get(session.id, id))?.status).toBe('expired');
    const late = approve(asked.message);
    const response = await fetch(`${c.url}?session=${session.id}`, {
      method: 'POST',
      body: JSON.stringify({ messages: [userMessage('Save x'), late] }),
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('no answered approval is pending');
  });
});

/** An approval store on its own connection to the SQLite file (as another process would have). */
async function sqlApprovals(url: string) {
  const { openStore } = await import('@yourtool/store');
  const store = (await openStore(url)) as SqlSessionStore;
  onTestFinished(() => store.close());
  return new SqlApprovalStore(store);
}
