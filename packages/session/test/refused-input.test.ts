import type { ContentBlock } from '@yourtool/core';
import { PNG_1PX_BASE64 } from '@yourtool/testkit';
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../src/index.js';
import { collect, fixturesOf, loopbackForFile, requireFixture } from './helpers.js';
import { reopen, sqliteHarness } from './sqlite-harness.js';

const fixtures = fixturesOf('anthropic');
const loopback = loopbackForFile();

const png = (data: string, media_type = 'image/png') =>
  ({ type: 'image', source: { kind: 'base64', data }, media_type }) as ContentBlock;
const untyped = { type: 'image', source: { kind: 'base64', data: PNG_1PX_BASE64 } } as ContentBlock;
const caption = { type: 'text', text: 'What is in this image?' } as const;
/** The first bytes of a JPEG file, as base64. */
const JPEG_SIGNATURE_ONLY = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16]).toString('base64');

/** Each refused input: what was sent, the block named, and what the reason says. */
const REFUSED: Array<[string, string | ContentBlock[], number | null, string]> = [
  ['whitespace-only text', '  \n\t ', 0, 'the text is empty or only whitespace'],
  ['empty text', '', 0, 'the text is empty or only whitespace'],
  ['an empty content list', [], null, 'the content list is empty'],
  [
    'a whitespace-only text block',
    [png(PNG_1PX_BASE64), { type: 'text', text: ' \n ' }],
    1,
    'text block: the text is empty or only whitespace',
  ],
  [
    'an image that is not base64',
    [caption, png('iVBORw0KGgo-not_base64')],
    1,
    'image block: source.data: base64 image data is not valid base64: "-" at offset 11',
  ],
  [
    'an image with line-wrapped base64',
    [png(`${PNG_1PX_BASE64.slice(0, 20)}\n${PNG_1PX_BASE64.slice(20)}`)],
    0,
    'image block: source.data: base64 image data is not valid base64: whitespace at offset 20',
  ],
  [
    'an image given as a data: URL',
    [png(`data:image/png;base64,${PNG_1PX_BASE64}`)],
    0,
    'image block: source.data: base64 image data must be the bare base64 text, without a "data:',
  ],
  ['an image without a media type', [caption, untyped], 1, 'image block: media_type is missing'],
  [
    'an image of a type that is not an image',
    [png(PNG_1PX_BASE64, 'application/pdf')],
    0,
    'image block: media_type: "application/pdf" is not an image media type',
  ],
  [
    'an image with a malformed media type',
    [png(PNG_1PX_BASE64, 'PNG')],
    0,
    'image block: media_type: must be an IANA media type',
  ],
  ['an image with empty data', [png('')], 0, 'image block: source.data: image source data'],
  [
    'an image whose data is only padding',
    [png('==')],
    0,
    'image block: source.data: base64 image data is not valid base64: its length 2 is not a multiple of 4',
  ],
  [
    'a PNG declared as a JPEG',
    [png(PNG_1PX_BASE64, 'image/jpeg')],
    0,
    'image block: source.data holds image/png data but media_type says image/jpeg',
  ],
  [
    'a JPEG declared as a PNG',
    [png(JPEG_SIGNATURE_ONLY, 'image/png')],
    0,
    'image block: source.data holds image/jpeg data but media_type says image/png',
  ],
  [
    'an image URL that is not http(s)',
    [
      {
        type: 'image',
        source: { kind: 'url', data: 'file:///etc/passwd' },
        media_type: 'image/png',
      },
    ],
    0,
    'image block: source.data: "file:///etc/passwd" is not an http(s) URL',
  ],
  [
    'a tool result in a user message',
    [{ type: 'tool_result', tool_use_id: 'tu_1', content: [], is_error: false }],
    0,
    'a user message holds text and image blocks only, not "tool_result"',
  ],
];

describe('user input refused before it is stored', () => {
  it.each(REFUSED)(
    'refuses %s, naming the block; nothing is stored and the next turn runs',
    async (_what, input, index, reason) => {
      const { server } = loopback;
      const h = await sqliteHarness(server);
      server.enqueue(
        ...requireFixture(fixtures, 'text-stream'),
        ...requireFixture(fixtures, 'text-stream'),
      );
      const session = await h.manager.createSession({ workspace_path: '/work/input' });
      await h.manager.sendAndWait(session.id, 'Hello');
      const before = await h.store.loadMessages(session.id);
      expect(before.messages).toHaveLength(2);

      const error = await h.manager.sendAndWait(session.id, input).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidInputError);
      const refused = error as InvalidInputError;
      expect(refused.code).toBe('invalid_input');
      expect(refused.block_index).toBe(index);
      expect(refused.reason.slice(0, reason.length)).toBe(reason);
      const where = index === null ? 'the message' : `content[${index}]`;
      expect(refused.message).toBe(`cannot send ${where}: ${refused.reason}; nothing was stored`);

      // nothing stored, no model called: the history read through another connection is unchanged
      expect(server.requests).toHaveLength(1);
      expect(await (await reopen(h)).loadMessages(session.id)).toEqual(before);

      const next = await h.manager.sendAndWait(session.id, 'Hello again');
      expect(next.end).toBe('end_turn');
      expect(next.error).toBeNull();
      const body = server.requests[1]?.body as {
        messages: Array<{ role: string; content: Array<{ text?: string }> }>;
      };
      expect(body.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
      expect(body.messages[2]?.content).toMatchObject([{ text: 'Hello again' }]);
      expect((await h.store.loadMessages(session.id)).messages).toHaveLength(4);
    },
  );

  it('refuses through send() too, before any event', async () => {
    const { server } = loopback;
    const h = await sqliteHarness(server);
    server.enqueue(...requireFixture(fixtures, 'text-stream'));
    const session = await h.manager.createSession({ workspace_path: '/work/input' });
    const { events, error } = await collect(h.manager.send(session.id, '   '));
    expect(events).toEqual([]);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((await h.store.loadMessages(session.id)).messages).toEqual([]);
    expect(server.requests).toHaveLength(0);
    // a caption and a well-formed image are taken
    const next = await h.manager.sendAndWait(session.id, [caption, png(PNG_1PX_BASE64)]);
    expect(next.end).toBe('end_turn');
    const [user] = (await h.store.loadMessages(session.id)).messages;
    expect(user?.content).toEqual([caption, png(PNG_1PX_BASE64)]);
  });
});
