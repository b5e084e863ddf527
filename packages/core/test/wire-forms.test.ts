import { describe, expect, it } from 'vitest';
import {
  deepFrozen,
  type EncodedWireForm,
  freezeWireForm,
  type Message,
  newMessageId,
  SealedWireForms,
  sealMessage,
  ToolIdMap,
  toolIdsRecorded,
} from './exports.js';
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

/** An encoder that counts its calls and says whether its forms may be kept. */
function counting(reusable = true) {
  const calls: Message[] = [];
  const kept: boolean[] = [];
  const encode = (m: Message, keep: boolean): EncodedWireForm<string[]> => {
    calls.push(m);
    kept.push(keep);
    return { form: m.content.map((b) => (b.type === 'text' ? b.text : '?')), reusable };
  };
  return { calls, kept, encode };
}

describe('SealedWireForms', () => {
  it('encodes a sealed message once per context and hands back the same form', () => {
    const forms = new SealedWireForms<string[]>();
    const { calls, encode } = counting();
    const context = {};
    const sealed = sealMessage(message('hello'));
    const first = forms.get(sealed, context, encode);
    const second = forms.get(sealed, context, encode);
    expect(second).toBe(first);
    expect(first).toEqual(['hello']);
    expect(calls).toHaveLength(1);
    expect(forms.has(sealed, context)).toBe(true);
    expect(forms.has(sealed, {})).toBe(false);
  });

  it('encodes again under another context and keeps the newer form', () => {
    const forms = new SealedWireForms<string[]>();
    const { calls, encode } = counting();
    const sealed = sealMessage(message('hello'));
    const a = {};
    const b = {};
    forms.get(sealed, a, encode);
    forms.get(sealed, b, encode);
    forms.get(sealed, b, encode);
    expect(calls).toHaveLength(2);
    forms.get(sealed, a, encode);
    expect(calls).toHaveLength(3);
  });

  it('never keeps the form of an unsealed message (it may change)', () => {
    const forms = new SealedWireForms<string[]>();
    const { calls, kept, encode } = counting();
    const context = {};
    const open = message('draft');
    expect(forms.get(open, context, encode)).toEqual(['draft']);
    (open.content[0] as { text: string }).text = 'edited';
    expect(forms.get(open, context, encode)).toEqual(['edited']);
    expect(calls).toHaveLength(2);
    // the encoder is told the form will not be kept (it need not freeze it)
    expect(kept).toEqual([false, false]);
    forms.get(sealMessage(message('sealed')), context, encode);
    expect(kept).toEqual([false, false, true]);
  });

  it('does not keep a form its encoder calls one-off', () => {
    const forms = new SealedWireForms<string[]>();
    const { calls, encode } = counting(false);
    const context = {};
    const sealed = sealMessage(message('hello'));
    forms.get(sealed, context, encode);
    forms.get(sealed, context, encode);
    expect(calls).toHaveLength(2);
    expect(forms.has(sealed, context)).toBe(false);
  });

  it('keeps forms apart per instance (one per encoder)', () => {
    const one = new SealedWireForms<string[]>();
    const two = new SealedWireForms<string[]>();
    const context = {};
    const sealed = sealMessage(message('hello'));
    one.get(sealed, context, () => ({ form: ['one'], reusable: true }));
    expect(two.get(sealed, context, () => ({ form: ['two'], reusable: true }))).toEqual(['two']);
    expect(one.get(sealed, context, () => ({ form: ['x'], reusable: true }))).toEqual(['one']);
  });
});

describe('toolIdsRecorded', () => {
  const withTools = (): Message => ({
    ...message('calls'),
    role: 'assistant',
    content: [
      { type: 'text', text: 'reading' },
      { type: 'tool_use', id: 'toolu_01', name: 'read', input: {} },
    ],
  });

  it('is true only when every tool id the message carries has a link the map records and the rules accept', () => {
    const m = withTools();
    const map = new ToolIdMap();
    expect(toolIdsRecorded(m, map, 'p', undefined)).toBe(false);
    map.set({ canonical_id: 'toolu_01', provider: 'p', provider_id: 'call-1' });
    expect(toolIdsRecorded(m, map, 'p', undefined)).toBe(true);
    // a recorded link the provider's rules refuse is derived afresh each time: not kept
    expect(toolIdsRecorded(m, map, 'p', { pattern: /^[a-z0-9]+$/ })).toBe(false);
    expect(toolIdsRecorded(m, map, 'other', undefined)).toBe(false);
    // a message without tool ids depends on no link
    expect(toolIdsRecorded(message('plain'), new ToolIdMap(), 'p', undefined)).toBe(true);
  });

  it('freezeWireForm freezes every level, and deepFrozen tells a partly frozen value apart', () => {
    const form = { a: [{ b: 1 }], c: { d: 'x' } };
    const partly = Object.freeze({ inner: { open: true } });
    expect(deepFrozen(partly)).toBe(false);
    freezeWireForm(form);
    expect(deepFrozen(form)).toBe(true);
    expect(Object.isFrozen(form.a[0])).toBe(true);
  });
});
