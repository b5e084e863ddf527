import { describe, expect, it } from 'vitest';
import {
  type AdapterCapabilities,
  type ContentBlock,
  createMemoryLogger,
  isSealedMessage,
  MISSING_TOOL_RESULT_TEXT,
  prepareHistory,
  type ReplayTarget,
  sealMessage,
  type TextBlock,
  UnrepresentableContentError,
} from './exports.js';
import { completeAssistantMeta, msg, PNG_1PX } from './helpers.js';

const caps: AdapterCapabilities = {
  supports_images: true,
  supports_thinking: true,
  supports_tools: true,
  supports_system_prompt: true,
  supports_structured_output: true,
  supports_streaming: true,
  supports_streaming_tool_calls: true,
  supports_parallel_tool_calls: true,
  supports_prompt_caching: false,
  max_context_tokens: 200_000,
  max_output_tokens: 8192,
  accepted_image_media_types: ['image/png', 'image/jpeg'],
};
const openai: ReplayTarget = {
  adapter: 'openai',
  model: 'openai:gpt-5',
  capabilities: { ...caps, supports_thinking: false },
};
const sonnet: ReplayTarget = {
  adapter: 'anthropic',
  model: 'anthropic:claude-sonnet-4-6',
  capabilities: caps,
};

const t = (text: string): TextBlock => ({ type: 'text', text });
const png: ContentBlock = {
  type: 'image',
  source: { kind: 'base64', data: PNG_1PX },
  media_type: 'image/png',
};
const use = (id: string): ContentBlock => ({
  type: 'tool_use',
  id,
  name: 'read_file',
  input: { path: 'a' },
});
const result = (id: string, content: ContentBlock[] = [t('file body')]) =>
  msg(
    'tool',
    [{ type: 'tool_result', tool_use_id: id, content: content as never, is_error: false }],
    { parent_tool_use_id: id },
  );

describe('prepareHistory', () => {
  it('hoists system prompt and SYSTEM messages, joined by a blank line', () => {
    const history = [
      msg('system', [t('You are terse.')]),
      msg('user', [t('hi')]),
      msg('system', [t('Workspace: /w')]),
    ];
    const prepared = prepareHistory(history, openai, { system_prompt: 'Base.' });
    expect(prepared.system).toBe('Base.\n\nYou are terse.\n\nWorkspace: /w');
    expect(prepared.messages.map((m) => m.role)).toEqual(['user']);
    expect(prepareHistory([msg('user', [t('x')])], openai).system).toBeNull();
  });

  it('removes empty text and drops messages left empty', () => {
    const history = [
      msg('user', [t(''), t('  '), t('real')]),
      msg('assistant', [t('')], completeAssistantMeta()),
    ];
    const prepared = prepareHistory(history, openai);
    expect(prepared.messages).toHaveLength(1);
    expect(prepared.messages[0]?.content).toEqual([t('real')]);
    expect(prepared.dropped).toEqual([]);
  });

  it('keeps thinking only for the model that produced it, dropping it elsewhere with a WARN', () => {
    const thinking: ContentBlock = { type: 'thinking', text: 'hmm', signature: 'sig' };
    const redacted: ContentBlock = { type: 'redacted_thinking', data: 'opaque' };
    const assistant = msg(
      'assistant',
      [thinking, redacted, t('answer')],
      completeAssistantMeta('anthropic:claude-sonnet-4-6'),
    );
    const same = prepareHistory([msg('user', [t('q')]), assistant], sonnet);
    expect(same.messages[1]?.content).toEqual([thinking, redacted, t('answer')]);

    const logger = createMemoryLogger();
    const other = prepareHistory([msg('user', [t('q')]), assistant], openai, { logger });
    expect(other.messages[1]?.content).toEqual([t('answer')]);
    expect(other.dropped.map((d) => d.block_type)).toEqual(['thinking', 'redacted_thinking']);
    expect(logger.warnings()[0]?.obj).toMatchObject({
      event: 'block_dropped',
      session_id: assistant.session_id,
      message_id: assistant.id,
      block_type: 'thinking',
      adapter: 'openai',
    });
    const opus: ReplayTarget = { ...sonnet, model: 'anthropic:claude-opus-4-7' };
    expect(prepareHistory([assistant], opus).dropped).toHaveLength(2);
  });

  it('drops images for a text-only model and unsupported media types, including inside tool results', () => {
    const textOnly: ReplayTarget = {
      ...openai,
      capabilities: { ...openai.capabilities, supports_images: false },
    };
    const gif: ContentBlock = {
      type: 'image',
      source: { kind: 'url', data: 'https://x.test/a.gif' },
      media_type: 'image/gif',
    };
    const history = [
      msg('user', [t('look'), png, gif]),
      msg('assistant', [use('tu_1')], completeAssistantMeta()),
      result('tu_1', [t('ok'), png]),
    ];
    const onText = prepareHistory(history, textOnly);
    expect(onText.messages[0]?.content).toEqual([t('look')]);
    expect(onText.messages[2]?.content[0]).toMatchObject({ content: [t('ok')] });
    expect(onText.dropped.map((d) => d.block_type)).toEqual(['image', 'image', 'image']);
    const onVision = prepareHistory(history, openai);
    expect(onVision.messages[0]?.content).toEqual([t('look'), png]);
    expect(onVision.dropped.map((d) => d.reason)).toEqual([
      'openai:gpt-5 does not accept image/gif images',
    ]);
  });

  it('fails instead of dropping when the message is marked critical', () => {
    const history = [msg('user', [t('see'), png], { critical: true })];
    const textOnly: ReplayTarget = {
      ...openai,
      capabilities: { ...openai.capabilities, supports_images: false },
    };
    expect(() => prepareHistory(history, textOnly)).toThrowError(UnrepresentableContentError);
  });

  it('inserts an error result for an unanswered tool use, right after its turn', () => {
    const logger = createMemoryLogger();
    const history = [
      msg('user', [t('go')]),
      msg('assistant', [use('tu_1'), use('tu_2')], completeAssistantMeta()),
      result('tu_1'),
      msg('user', [t('stop')]),
    ];
    const prepared = prepareHistory(history, openai, { logger });
    expect(prepared.messages.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'tool',
      'user',
    ]);
    expect(prepared.messages[3]?.content[0]).toEqual({
      type: 'tool_result',
      tool_use_id: 'tu_2',
      content: [t(MISSING_TOOL_RESULT_TEXT)],
      is_error: true,
    });
    expect(prepared.repairs.map((r) => r.kind)).toEqual(['synthetic_tool_result']);
    expect(logger.warnings()[0]?.obj).toMatchObject({
      event: 'history_repaired',
      tool_use_id: 'tu_2',
    });
  });

  it('moves results next to their tool use, in tool-use order, and drops orphans and duplicates', () => {
    const history = [
      msg('user', [t('go')]),
      msg('assistant', [use('tu_1'), use('tu_2')], completeAssistantMeta()),
      msg('user', [t('interjection')]),
      result('tu_2'),
      result('tu_1'),
      result('tu_1'),
      result('tu_ghost'),
    ];
    const prepared = prepareHistory(history, openai);
    expect(
      prepared.messages.map((m) =>
        m.role === 'tool' ? `tool:${m.metadata.parent_tool_use_id}` : m.role,
      ),
    ).toEqual(['user', 'assistant', 'tool:tu_1', 'tool:tu_2', 'user']);
    expect(prepared.repairs.map((r) => r.kind).sort()).toEqual([
      'duplicate_tool_result_dropped',
      'orphan_tool_result_dropped',
      'tool_result_moved',
      'tool_result_moved',
    ]);
  });

  it('passes a stored TOOL message that answers its use as the same object, sealed or not', () => {
    const reply = sealMessage(result('tu_1'));
    const unsealed = result('tu_2');
    const elsewhere = result('tu_3'); // its link names another use: a copy fixes it
    const stray = { ...elsewhere, metadata: { ...elsewhere.metadata, parent_tool_use_id: 'x' } };
    const history = [
      msg('user', [t('read them')]),
      msg('assistant', [use('tu_1'), use('tu_2'), use('tu_3')], completeAssistantMeta()),
      reply,
      unsealed,
      stray,
    ];
    const prepared = prepareHistory(history, sonnet);
    expect(prepared.messages[2]).toBe(reply);
    expect(isSealedMessage(prepared.messages[2])).toBe(true);
    expect(prepared.messages[3]).toBe(unsealed);
    expect(prepared.messages[4]).not.toBe(stray);
    expect(prepared.messages[4]?.metadata.parent_tool_use_id).toBe('tu_3');
  });

  it('splits foreign tool results held in user or multi-result messages', () => {
    const history = [
      msg('assistant', [use('tu_1'), use('tu_2')], completeAssistantMeta()),
      msg('user', [
        { type: 'tool_result', tool_use_id: 'tu_1', content: [t('one')], is_error: false },
        { type: 'tool_result', tool_use_id: 'tu_2', content: [t('two')], is_error: true },
        t('and a question'),
      ]),
    ];
    const prepared = prepareHistory(history, openai);
    expect(prepared.messages.map((m) => m.role)).toEqual(['assistant', 'tool', 'tool', 'user']);
    expect(prepared.messages[2]?.content[0]).toMatchObject({ tool_use_id: 'tu_2', is_error: true });
    expect(prepared.messages[3]?.content).toEqual([t('and a question')]);
    expect(prepared.repairs).toEqual([]);
  });

  it('drops tool blocks for a model without tools, and skips partial messages', () => {
    const noTools: ReplayTarget = {
      ...openai,
      capabilities: { ...openai.capabilities, supports_tools: false },
    };
    const history = [
      msg('user', [t('go')]),
      msg('assistant', [t('reading'), use('tu_1')], completeAssistantMeta()),
      result('tu_1'),
      msg('assistant', [t('half')], { status: 'partial' }),
    ];
    const prepared = prepareHistory(history, noTools);
    expect(prepared.messages.map((m) => m.content)).toEqual([[t('go')], [t('reading')]]);
    expect(prepared.dropped.map((d) => d.block_type)).toEqual(['tool_use', 'tool_result']);
    expect(prepared.repairs.map((r) => r.kind)).toEqual(['partial_message_skipped']);
  });

  it('skips an assistant reply stored at status error, with a repair naming why', () => {
    const history = [
      msg('user', [t('go')]),
      msg('assistant', [t('cut at the limit')], {
        ...completeAssistantMeta(),
        status: 'error',
        stop_reason: 'max_tokens',
        error: { rule: 'tool-name-format', message: 'tool name "functions.x" breaks the rule' },
      }),
      msg('user', [t('again')]),
    ];
    const prepared = prepareHistory(history, openai);
    expect(prepared.messages.map((m) => m.content)).toEqual([[t('go')], [t('again')]]);
    expect(prepared.repairs).toMatchObject([
      {
        kind: 'error_message_skipped',
        message_id: history[1]?.id,
        detail: expect.stringContaining('functions.x'),
      },
    ]);
  });

  it('replays a cancelled assistant turn with its partial text and repaired tool use', () => {
    const cancelled = msg(
      'assistant',
      [t('I will re'), { type: 'tool_use', id: 'tu_c', name: 'read_file', input: {} }],
      {
        ...completeAssistantMeta(),
        status: 'cancelled',
      },
    );
    const prepared = prepareHistory(
      [msg('user', [t('go')]), cancelled, msg('user', [t('continue')])],
      openai,
    );
    expect(prepared.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user']);
  });
});
