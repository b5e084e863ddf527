import {
  httpError,
  reset,
  type ScriptedProvider,
  stall,
  startScriptedProvider,
  text,
  thinking,
  toolCall,
  usage,
} from '@yourtool/testing';
import type { UIMessage } from 'ai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { replyIdFor } from '../src/index.js';
import { MAJORS, post, startInstance, types, userMessage } from './helpers.js';

let provider: ScriptedProvider;
beforeAll(async () => {
  provider = await startScriptedProvider();
});
afterEach(() => provider.clear());
afterAll(() => provider.close());

const FALLBACK = 'global_default: sonnet\nfallbacks:\n  sonnet: [gemini]\n';

/** The client's answer to the approval on `message`, as `addToolApprovalResponse` leaves it. */
function answered(message: UIMessage, approved: boolean): UIMessage {
  const copy = structuredClone(message);
  for (const part of copy.parts) {
    if (part.type === 'dynamic-tool' && part.state === 'approval-requested') {
      Object.assign(part, {
        state: 'approval-responded',
        approval: { id: part.approval.id, approved },
      });
    }
  }
  return copy;
}

/**
 * Every kind of event, rendered by the bridge and read by each major's own client transport
 * (its SSE parser and chunk schema) and `readUIMessageStream`.
 */
describe.each(MAJORS)('the UI message stream read by $protocol', ({ protocol, sdk }) => {
  async function chat(routing?: string) {
    const instance = await startInstance({ provider, protocol, ...(routing ? { routing } : {}) });
    const session = await instance.runtime.sessions.createSession({ workspace_path: '/w' });
    return { ...instance, session, url: `${instance.url}?session=${session.id}` };
  }

  it('streams reasoning and text, with usage and cost as metadata, under the stored ids', async () => {
    const c = await chat();
    provider.reply(
      thinking('Hmm.', { signature: 'sig' }),
      text('Hello there', { chunks: 3 }),
      usage({ input_tokens: 1000, output_tokens: 200 }),
    );
    const got = await post(sdk, c.url, [userMessage('Hi')]);
    expect(types(got)).toEqual([
      'start',
      'start-step',
      'reasoning-start',
      'reasoning-delta',
      'reasoning-end',
      'text-start',
      'text-delta',
      'text-delta',
      'text-delta',
      'text-end',
      'message-metadata',
      'finish-step',
      'finish',
    ]);
    const stored = await c.runtime.sessions.history(c.session.id);
    const [user, reply] = stored;
    expect(got.message.id).toBe(replyIdFor(user?.id ?? ''));
    expect(got.message.parts).toMatchObject([
      { type: 'step-start' },
      { type: 'reasoning', text: 'Hmm.' },
      { type: 'text', text: 'Hello there', state: 'done' },
    ]);
    const cost = reply?.metadata.usage?.cost_usd;
    expect(cost).toMatch(/^0\.\d+$/);
    expect(got.message.metadata).toMatchObject({
      model: 'anthropic:claude-sonnet-4-6',
      input_tokens: 1000,
      output_tokens: 200,
      turn_cost_usd: cost,
      session_cost_usd: cost,
    });
    expect(got.chunks.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
  });

  it('streams a tool call and its output, then the next step', async () => {
    const c = await chat();
    provider.reply(toolCall('lookup', { word: 'hi' }, { chunks: 2 })).reply(text('Done.'));
    const got = await post(sdk, c.url, [userMessage('Look hi up')]);
    expect(types(got)).toEqual(
      expect.arrayContaining([
        'tool-input-start',
        'tool-input-delta',
        'tool-input-available',
        'tool-output-available',
      ]),
    );
    expect(got.message.parts).toMatchObject([
      { type: 'step-start' },
      {
        type: 'dynamic-tool',
        toolName: 'lookup',
        state: 'output-available',
        input: { word: 'hi' },
        output: 'hi: a greeting',
      },
      { type: 'step-start' },
      { type: 'text', text: 'Done.' },
    ]);
  });

  it.each([true, false])(
    'asks approval, and takes the answer (approved: %s) in the next request',
    async (approved) => {
      const c = await chat();
      provider
        .reply(toolCall('save_note', { text: 'x' }))
        .reply(text(approved ? 'Saved.' : 'Not saved.'));
      const first = await post(sdk, c.url, [userMessage('Save x')]);
      expect(first.chunks.at(-1)).toMatchObject({ type: 'finish', finishReason: 'tool-calls' });
      const asked = first.message.parts.find((p) => p.type === 'dynamic-tool');
      expect(asked).toMatchObject({ state: 'approval-requested', toolName: 'save_note' });
      const reply = answered(first.message, approved);
      const second = await post(sdk, c.url, [userMessage('Save x'), reply], { continuing: reply });
      expect(second.message.id).toBe(first.message.id);
      const tool = second.message.parts.find((p) => p.type === 'dynamic-tool');
      expect(tool).toMatchObject({ state: approved ? 'output-available' : 'output-denied' });
      expect(second.message.parts.at(-1)).toMatchObject({
        type: 'text',
        text: approved ? 'Saved.' : 'Not saved.',
      });
      expect(c.saved).toEqual(approved ? ['x'] : []);
      expect(types(second)).toContain(approved ? 'tool-output-available' : 'tool-output-denied');
    },
  );

  it('drops what a failed model streamed when the turn falls back mid-step', async () => {
    const c = await chat(FALLBACK);
    provider.reply(reset(text('Half an', { chunks: 2 }))).reply(text('From Gemini.'));
    const got = await post(sdk, c.url, [userMessage('Hi')]);
    const texts = got.message.parts.flatMap((p) => (p.type === 'text' ? [p.text] : []));
    if (protocol === 'ai7') {
      expect(types(got)).toContain('reset-step');
      expect(texts).toEqual(['From Gemini.']);
    } else {
      // ai 6 has no reset-step: the data part marks the parts before it in the step as dropped
      expect(types(got)).not.toContain('reset-step');
      const marker = got.message.parts.findIndex((p) => p.type === 'data-yourtool-fallback');
      expect(got.message.parts[marker]).toMatchObject({
        data: {
          from: 'anthropic:claude-sonnet-4-6',
          to: 'google:gemini-2.5-flash',
          error_class: 'network',
        },
      });
      expect(texts).toEqual(['Half an', 'From Gemini.']);
      expect(got.message.parts.slice(marker + 1)).toMatchObject([
        { type: 'text', text: 'From Gemini.' },
      ]);
    }
    expect(got.message.metadata).toMatchObject({ model: 'google:gemini-2.5-flash' });
  });

  it("reports a failed turn without the provider's words", async () => {
    const c = await chat();
    provider.reply(httpError(400, { message: 'secret-detail-from-the-provider' }));
    const errors: unknown[] = [];
    const got = await post(sdk, c.url, [userMessage('Hi')], { onError: (e) => errors.push(e) });
    expect(String(errors[0])).toContain('The model call failed (invalid_request).');
    const error = got.chunks.find((chunk) => chunk.type === 'error');
    expect(error).toEqual({ type: 'error', errorText: 'The model call failed (invalid_request).' });
    expect(JSON.stringify(got.chunks)).not.toContain('secret-detail');
  });

  it('a client that stops reading cancels the turn; a stop on the server ends the stream with abort', async () => {
    const c = await chat();
    provider.reply(stall(text('Hel')));
    const controller = new AbortController();
    await expect(
      post(sdk, c.url, [userMessage('Hi')], { abortSignal: controller, abortOn: 'text-delta' }),
    ).rejects.toThrow();
    await expect
      .poll(async () => (await c.runtime.sessions.history(c.session.id)).at(-1)?.metadata.status)
      .toBe('cancelled');
    provider.reply(stall(text('Hel')));
    const stopping = post(sdk, c.url, [userMessage('Again')], {
      onChunk: (chunk) => {
        if (chunk.type === 'text-delta') c.bridge.stop(c.session.id);
      },
    });
    const got = await stopping;
    expect(got.chunks.at(-1)).toMatchObject({ type: 'abort' });
    expect(got.message.parts).toMatchObject([
      { type: 'step-start' },
      { type: 'text', text: 'Hel' },
    ]);
  });
});
