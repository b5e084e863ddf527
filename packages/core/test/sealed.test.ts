import { describe, expect, it } from 'vitest';
import {
  createMessage,
  estimateMessageTokens,
  estimateRequestTokens,
  estimateTextTokens,
  estimateToolTokens,
  freezeToolDefinition,
  InvalidRequestError,
  imageSourceViolations,
  isSealedMessage,
  MESSAGE_OVERHEAD_TOKENS,
  MemorySessionStore,
  type Message,
  normalizeRequest,
  sealMessage,
  TOOL_OVERHEAD_TOKENS,
  type ToolDefinition,
} from './exports.js';

const text = (t: string, session_id = 'sess_sealed') =>
  createMessage({ session_id, role: 'user', content: [{ type: 'text', text: t }] });

const request = (messages: unknown[]) => ({
  request_id: 'req_sealed',
  model: 'echo:small',
  max_output_tokens: 16,
  messages: messages as Message[],
});

describe('sealed messages (decision 0102)', () => {
  it('sealing deep-freezes the message and marks it; copies are not sealed', () => {
    const message = sealMessage(text('hello'));
    expect(isSealedMessage(message)).toBe(true);
    expect(Object.isFrozen(message)).toBe(true);
    expect(Object.isFrozen(message.content[0])).toBe(true);
    expect(Object.isFrozen(message.metadata)).toBe(true);
    expect(() => {
      (message.content[0] as { text: string }).text = 'changed';
    }).toThrow(TypeError);
    expect(isSealedMessage({ ...message })).toBe(false);
    expect(isSealedMessage(text('other'))).toBe(false);
    expect(isSealedMessage(null)).toBe(false);
  });

  it('normalizeRequest takes a sealed message as it is and checks every other one, naming its path', () => {
    const sealed = sealMessage(text('checked once'));
    const out = normalizeRequest(request([sealed, text('fresh')]));
    // the very object: no parse, no copy
    expect(out.messages[0]).toBe(sealed);
    expect(out.messages[1]).not.toBe(sealed);

    // an unsealed message is checked: a bad block is refused with its path
    const bad = { ...text('x'), content: [{ type: 'text', text: 42 }] };
    expect(() => normalizeRequest(request([sealed, bad]))).toThrow(InvalidRequestError);
    expect(() => normalizeRequest(request([sealed, bad]))).toThrow(
      /messages\[1\]\.content\[0\]\.text/,
    );
    // request fields and messages are reported together, with or without sealed messages
    for (const messages of [[bad], [sealed, bad]]) {
      const error = (() => {
        try {
          normalizeRequest({ ...request(messages), max_output_tokens: 0 } as never);
        } catch (e) {
          return e as Error;
        }
        return null;
      })();
      expect(error).toBeInstanceOf(InvalidRequestError);
      expect(error?.message).toMatch(/max_output_tokens: /);
      expect(error?.message).toMatch(
        new RegExp(`messages\\[${messages.length - 1}\\]\\.content\\[0\\]\\.text`),
      );
    }
    expect(() => normalizeRequest({ ...request([]), messages: 'no' } as never)).toThrow(
      /invalid canonical request: messages: /,
    );
  });

  it('the image-source check remembers sealed messages that passed, and rechecks the rest', () => {
    const image = (data: string) =>
      createMessage({
        session_id: 'sess_sealed',
        role: 'user',
        content: [{ type: 'image', media_type: 'image/png', source: { kind: 'base64', data } }],
      });
    const good = sealMessage(image('iVBORw0KGgo='));
    expect(imageSourceViolations([good])).toEqual([]);
    expect(imageSourceViolations([good])).toEqual([]);
    // an unsealed message with a bad source is reported at its index every time
    const bad = image('not base64!');
    expect(imageSourceViolations([good, bad]).map((v) => v.path)).toEqual([
      'messages[1].content[0].source.data',
    ]);
    // a sealed message with a bad source is never remembered as good
    const sealedBad = sealMessage(image('also not base64!'));
    expect(imageSourceViolations([sealedBad])).toHaveLength(1);
    expect(imageSourceViolations([sealedBad])).toHaveLength(1);
  });

  it('token estimates: the same figures with and without the cache; unsealed messages are estimated afresh', () => {
    const words = 'the quick brown fox jumps over the lazy dog';
    const plain = text(words);
    const sealed = sealMessage(text(words));
    const expected = MESSAGE_OVERHEAD_TOKENS + estimateTextTokens(words);
    expect(estimateMessageTokens(plain)).toBe(expected);
    expect(estimateMessageTokens(sealed)).toBe(expected);
    expect(estimateMessageTokens(sealed)).toBe(expected);

    // an unsealed message may change between calls, and its estimate follows
    (plain.content[0] as { text: string }).text = `${words} ${words}`;
    expect(estimateMessageTokens(plain)).toBe(
      MESSAGE_OVERHEAD_TOKENS + estimateTextTokens(`${words} ${words}`),
    );

    const tool: ToolDefinition = {
      name: 'read_file',
      description: 'Read a file of the workspace.',
      input_schema: { type: 'object', properties: { path: { type: 'string' } } },
      side_effects: 'read',
      requires_workspace: true,
    };
    const toolTokens =
      TOOL_OVERHEAD_TOKENS +
      estimateTextTokens(tool.name) +
      estimateTextTokens(tool.description) +
      estimateTextTokens(JSON.stringify(tool.input_schema));
    expect(estimateToolTokens(tool)).toBe(toolTokens);
    const frozen = freezeToolDefinition(structuredClone(tool));
    expect(Object.isFrozen(frozen.input_schema)).toBe(true);
    expect(estimateToolTokens(frozen)).toBe(toolTokens);
    expect(estimateRequestTokens([sealed, plain], [frozen], 'Be brief.')).toBe(
      estimateTextTokens('Be brief.') +
        MESSAGE_OVERHEAD_TOKENS +
        expected +
        estimateMessageTokens(plain) +
        toolTokens,
    );
  });
});

describe('MemorySessionStore revision (decision 0103)', () => {
  it('rises with every write to the messages and not with a session patch', async () => {
    const store = new MemorySessionStore();
    const session = await store.createSession({ workspace_path: '/w' });
    expect(session.revision).toBe(0);
    const user = createMessage({
      session_id: session.id,
      role: 'user',
      content: [{ type: 'text', text: 'hi' }],
    });
    await store.appendMessage(user);
    await store.updateMessage({ ...user, content: [{ type: 'text', text: 'hi there' }] });
    expect((await store.getSession(session.id))?.revision).toBe(2);
    await store.updateSession(session.id, { active_model: 'anthropic:claude-sonnet-4-6' });
    expect((await store.getSession(session.id))?.revision).toBe(2);
  });
});
