import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { runToolUseName, WireRuns, type WrittenList } from '../src/wire-runs.js';
import { type Message, newMessageId } from './exports.js';
import { SESSION } from './helpers.js';

const message = (text: string): Message => ({
  id: newMessageId(),
  session_id: SESSION,
  role: 'user',
  content: [{ type: 'text', text }],
  metadata: { status: 'complete' },
  created_at: '2026-11-25T10:00:00.000000Z',
  schema_version: 1,
});

const textOf = (m: Message): string => (m.content[0]?.type === 'text' ? m.content[0].text : '');

/** What the test encoder made of one request: the list, its JSON and the messages encoded. */
interface Encoded {
  out: string[];
  written: WrittenList;
  encoded: string[];
}

/**
 * Encodes `messages` as a list of their texts on top of `runs` (one item a message, its JSON the
 * text as a JSON string); a message whose text starts with `!` is not kept.
 */
function encode(runs: WireRuns<string>, messages: readonly Message[], context: object): Encoded {
  const tail = runs.resume(messages, context, null);
  const encoded: string[] = [];
  for (let i = tail.from; i < messages.length; i++) {
    const text = textOf(messages[i] as Message);
    encoded.push(text);
    tail.push([text], JSON.stringify(text), !text.startsWith('!'));
    tail.cut(i + 1);
  }
  return { out: tail.out, written: tail.finish(), encoded };
}

/** The list's JSON as a body would hold it. */
function json({ prefix, rest }: WrittenList): string {
  const head = new TextDecoder().decode(prefix);
  return `[${head}${head !== '' && rest !== '' ? ',' : ''}${rest}]`;
}

describe('WireRuns', () => {
  it('grows with the history: a request encodes only its new messages, the bytes are exact', () => {
    const runs = new WireRuns<string>();
    const context = {};
    const history = [message('a'), message('é ✓ 😀')];
    const first = encode(runs, history, context);
    expect(first.encoded).toEqual(['a', 'é ✓ 😀']);
    expect(json(first.written)).toBe(JSON.stringify(['a', 'é ✓ 😀']));
    expect(first.written.rest).toBe('');
    const longer = [...history, message('b'), message('c'.repeat(500))];
    const second = encode(runs, longer, context);
    expect(second.encoded).toEqual(['b', 'c'.repeat(500)]);
    expect(second.out).toEqual(longer.map(textOf));
    expect(json(second.written)).toBe(JSON.stringify(longer.map(textOf)));
    // the first body's bytes are as they were after the run grew
    expect(json(first.written)).toBe(JSON.stringify(['a', 'é ✓ 😀']));
  });

  it('stops the run at the first message not kept, and encodes from there again', () => {
    const runs = new WireRuns<string>();
    const context = {};
    const history = [message('a'), message('!once'), message('b')];
    const first = encode(runs, history, context);
    expect(new TextDecoder().decode(first.written.prefix)).toBe('"a"');
    expect(first.written.rest).toBe('"!once","b"');
    const second = encode(runs, history, context);
    expect(second.encoded).toEqual(['!once', 'b']);
    expect(json(second.written)).toBe(JSON.stringify(['a', '!once', 'b']));
  });

  it('never overwrites a body written earlier when a history is cut back or forked', () => {
    const runs = new WireRuns<string>();
    const context = {};
    const shared = [message('a'), message('b')];
    // cut points are where earlier requests ended: one at `shared`, one after `d`
    encode(runs, shared, context);
    const long = encode(runs, [...shared, message('c'), message('d')], context);
    const longJson = json(long.written);
    const fork = encode(runs, [...shared, message('x')], context);
    expect(fork.encoded).toEqual(['x']);
    expect(json(fork.written)).toBe(JSON.stringify(['a', 'b', 'x']));
    const forkJson = json(fork.written);
    const again = encode(runs, [...shared, message('y'), message('z')], context);
    expect(again.encoded).toEqual(['y', 'z']);
    expect(json(again.written)).toBe(JSON.stringify(['a', 'b', 'y', 'z']));
    expect(json(long.written)).toBe(longJson);
    expect(json(fork.written)).toBe(forkJson);
  });

  it('starts afresh under another context or head, and for a copy of the first message', () => {
    const runs = new WireRuns<string>();
    const history = [message('a'), message('b')];
    const context = {};
    encode(runs, history, context);
    expect(encode(runs, history, context).encoded).toEqual([]);
    expect(encode(runs, history, {}).encoded).toEqual(['a', 'b']);
    const copy = [{ ...(history[0] as Message) }, history[1] as Message];
    expect(encode(runs, copy, context).encoded).toEqual(['a', 'b']);
    const headed = runs.resume(history, context, 'system');
    expect(headed.from).toBe(0);
    expect(headed.headDone).toBe(false);
  });

  it('resumes within the first `upTo` messages, from the last cut there', () => {
    const runs = new WireRuns<string>();
    const context = {};
    const history = [message('a'), message('b'), message('c'), message('d')];
    encode(runs, history.slice(0, 2), context);
    encode(runs, history, context);
    expect(runs.resume(history, context, null).from).toBe(4);
    expect(runs.resume(history, context, null, 3).from).toBe(2);
    const earlier = runs.resume(history, context, null, 1);
    expect(earlier.from).toBe(0);
    expect(earlier.headDone).toBe(false);
  });

  it('holds a run only as long as its first message lives', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const runs = new WireRuns<string>();
    let history: Message[] | null = [message('a'), message('b'.repeat(100_000))];
    encode(runs, history, {});
    const first = new WeakRef(history[0] as Message);
    history = null;
    for (let i = 0; i < 10 && first.deref() !== undefined; i++) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      gc();
    }
    expect(first.deref()).toBeUndefined();
  });
});

describe('runToolUseName', () => {
  it('names the latest tool use of an id before the end given', () => {
    const use = (name: string): Message => ({
      ...message(''),
      role: 'assistant',
      content: [
        { type: 'text', text: 'calling' },
        { type: 'tool_use', id: 'call_1', name, input: {} },
      ],
    });
    const messages = [message('a'), use('read'), message('b'), use('write')];
    expect(runToolUseName(messages, 4, 'call_1')).toBe('write');
    expect(runToolUseName(messages, 3, 'call_1')).toBe('read');
    expect(runToolUseName(messages, 1, 'call_1')).toBeUndefined();
    expect(runToolUseName(messages, 4, 'call_2')).toBeUndefined();
  });
});
