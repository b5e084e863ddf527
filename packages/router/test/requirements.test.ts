import {
  type ContentBlock,
  createMessage,
  type Message,
  newSessionId,
  sealMessage,
} from '@yourtool/core';
import { describe, expect, it } from 'vitest';
import { turnNeeds } from '../src/index.js';
import { capabilityProblems } from '../src/requirements.js';
import { FULL } from './helpers.js';

/**
 * What a turn needs is read from the whole history; over the sealed messages it starts with,
 * once per history (core decision 0148). Each answer must be what the whole history gives.
 */

const SESSION = newSessionId();
const PNG = 'iVBORw0KGgo=';

const message = (role: Message['role'], content: ContentBlock[]) =>
  createMessage({ session_id: SESSION, role, content });
const image = (media_type: string) => ({
  type: 'image' as const,
  source: { kind: 'base64' as const, data: PNG },
  media_type,
});
const needsOf = (messages: readonly Message[]) =>
  turnNeeds({ messages, max_output_tokens: 1000, tools: [] });

describe('turnNeeds over a history that grows', () => {
  it('equals a fresh reading after each turn, images and tool uses in sealed and new messages', () => {
    const steps: Array<() => Message> = [
      () => message('user', [{ type: 'text', text: 'hi' }]),
      () => message('user', [image('image/png')]),
      () => message('system', [{ type: 'text', text: 'be brief' }]),
      () =>
        message('assistant', [{ type: 'tool_use', id: 'toolu_1', name: 'read_file', input: {} }]),
      () =>
        message('tool', [
          {
            type: 'tool_result',
            tool_use_id: 'toolu_1',
            content: [{ type: 'text', text: 'x' }, image('image/jpeg')],
            is_error: false,
          },
        ]),
      () => message('user', [image('image/gif')]),
    ];
    let history: Message[] = [message('user', [{ type: 'text', text: 'start' }])].map((m) =>
      sealMessage(m),
    );
    for (const next of steps) {
      const tail = next();
      const now = [...history, tail];
      expect(needsOf(now)).toEqual(needsOf(structuredClone(now)));
      history = [...history, sealMessage(tail)];
      expect(needsOf(history)).toEqual(needsOf(structuredClone(history)));
    }
    expect(needsOf(history)).toMatchObject({
      imageMediaTypes: ['image/png', 'image/jpeg', 'image/gif'],
      tools: true,
      systemPrompt: true,
    });
    // the answer handed out is the caller's: changing it changes nothing remembered
    needsOf(history).imageMediaTypes.push('image/webp');
    expect(needsOf(history).imageMediaTypes).toEqual(['image/png', 'image/jpeg', 'image/gif']);
  });
});

describe('structured output needs native support or tools (the forced-tool fallback)', () => {
  const needs = turnNeeds({
    messages: [message('user', [{ type: 'text', text: 'q' }])],
    output_schema: { type: 'object' },
    max_output_tokens: 10,
  });
  const caps = (native: boolean, tools: boolean) => ({
    ...FULL,
    supports_structured_output: native,
    supports_tools: tools,
  });

  it('accepts native, and tool-capable models without native support', () => {
    expect(needs.structuredOutput).toBe(true);
    expect(capabilityProblems(caps(true, false), needs, 10)).toEqual([]);
    expect(capabilityProblems(caps(false, true), needs, 10)).toEqual([]);
  });

  it('refuses a model with neither, saying why', () => {
    expect(capabilityProblems(caps(false, false), needs, 10)).toEqual([
      'the turn asks for structured output, and this model has neither structured output nor tools for the forced-tool fallback',
    ]);
  });
});
