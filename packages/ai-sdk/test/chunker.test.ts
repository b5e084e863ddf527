import { type ScriptedProvider, startScriptedProvider, text, toolCall } from '@yourtool/testing';
import type { UIMessage, UIMessageChunk } from 'ai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TurnChunker, type UiChunk } from '../src/index.js';
import { MAJORS, startInstance } from './helpers.js';

let provider: ScriptedProvider;
beforeAll(async () => {
  provider = await startScriptedProvider();
});
afterEach(() => provider.clear());
afterAll(() => provider.close());

/**
 * `TurnChunker` on its own, over a turn sent with `confirmFromStream` (the session's own
 * confirmation event, answered in the same process), read by each major's `readUIMessageStream`.
 */
describe.each(MAJORS)('TurnChunker read by $protocol', ({ protocol, sdk }) => {
  it('renders a confirmation asked from the stream as an approval request, then the tool output', async () => {
    const c = await startInstance({ provider, protocol });
    const session = await c.runtime.sessions.createSession({ workspace_path: '/w' });
    provider.reply(toolCall('save_note', { text: 'x' })).reply(text('Saved.'));
    const chunker = new TurnChunker({ protocol });
    const chunks: UiChunk[] = [{ type: 'start' }];
    for await (const event of c.runtime.sessions.send(session.id, 'Save x', {
      confirmFromStream: true,
    })) {
      chunks.push(...chunker.push(event));
      if (event.type === 'session.confirmation_requested') event.respond(true);
    }
    expect(chunks.map((chunk) => chunk.type)).toEqual(
      expect.arrayContaining(['tool-approval-request', 'tool-output-available', 'finish']),
    );
    const stream = new ReadableStream({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk);
        controller.close();
      },
    });
    let message: UIMessage | undefined;
    const reading = sdk.readUIMessageStream({
      stream: stream as ReadableStream<UIMessageChunk>,
      terminateOnError: true,
    });
    for await (const m of reading) message = m;
    expect(message?.parts).toMatchObject([
      { type: 'step-start' },
      { type: 'dynamic-tool', state: 'output-available', output: 'saved "x"' },
      { type: 'step-start' },
      { type: 'text', text: 'Saved.' },
    ]);
    expect(c.saved).toEqual(['x']);
  });
});
