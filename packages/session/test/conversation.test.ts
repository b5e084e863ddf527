import type { Message } from '@yourtool/core';
import { describe, expect, it } from 'vitest';
import { conversationOf, extendConversation } from '../src/conversation.js';

/**
 * The conversation a manager keeps for a session is extended with what each turn stored
 * (decision 0148) instead of being computed over the whole history again: it must be what the
 * whole gives, whatever the turn added (failed attempts and their fallbacks, summaries, a
 * summary naming a message that is not there).
 */

/** mulberry32: the same histories every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let counter = 0;
function message(
  role: Message['role'],
  metadata: Record<string, unknown> = { status: 'complete' },
): Message {
  counter++;
  return {
    id: `msg_${String(counter).padStart(6, '0')}`,
    session_id: 'sess_conversation',
    role,
    content: [{ type: 'text', text: `message ${counter}` }],
    metadata: metadata as Message['metadata'],
    created_at: '2026-11-25T10:00:00.000000Z',
    schema_version: 1,
  };
}

/** One random message, a summary naming one of `earlier` (or no stored message) among them. */
function randomMessage(random: () => number, earlier: readonly Message[]): Message {
  const roll = random();
  if (roll < 0.3) return message('user');
  if (roll < 0.55) return message('assistant');
  if (roll < 0.7) return message('assistant', { status: 'error' });
  if (roll < 0.82) {
    return message('assistant', {
      status: 'complete',
      routing: { fallback_from: [{ model: 'x:y', error_class: 'server_error' }] },
    });
  }
  if (roll < 0.9) return message('tool');
  const through =
    earlier.length > 0 && random() < 0.85
      ? (earlier[Math.floor(random() * earlier.length)] as Message).id
      : 'msg_not_stored';
  return message('system', {
    status: 'complete',
    compaction: {
      through_message_id: through,
      strategy: 'drop_oldest',
      replaced_messages: 1,
      reason: 'context_window',
    },
  });
}

describe('extendConversation', () => {
  it('gives what conversationOf gives over the whole, turn after turn', () => {
    const random = prng(30);
    for (let run = 0; run < 300; run++) {
      let messages: Message[] = [];
      let conversation = conversationOf(messages);
      for (let turn = 0; turn < 12; turn++) {
        const added: Message[] = [];
        const count = 1 + Math.floor(random() * 4);
        for (let i = 0; i < count; i++) added.push(randomMessage(random, [...messages, ...added]));
        conversation = extendConversation({ messages, conversation }, added);
        messages = [...messages, ...added];
        expect(conversation).toEqual(conversationOf(messages));
      }
    }
  });
});
