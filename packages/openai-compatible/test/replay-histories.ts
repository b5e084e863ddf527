import { AnthropicAdapter } from '@yourtool/anthropic';
import type { LoopbackServer, ReplayKit, ScriptedResponse } from '@yourtool/conformance';
import {
  createMessage,
  type Logger,
  type Message,
  newToolUseId,
  type ToolIdMap,
} from '@yourtool/core';
import { OpenAIAdapter } from '@yourtool/openai';
import { PNG_1PX_BASE64 } from '@yourtool/testkit';
import { DeepSeekAdapter } from '../src/index.js';

/**
 * A mixed history as a session stores it, for cross-provider replay tests: turns made through
 * the real Anthropic (Claude, thinking on), OpenAI Responses (GPT-5 reasoning) and DeepSeek
 * reasoner adapters against the loopback server, and a Gemini 3 turn written the way
 * `@yourtool/google` stores one (signed thinking, thought signatures in `provider_raw.google`,
 * a call without a provider id under a canonical id, an MCP-style tool name).
 */

export const SESSION = 'sess_cross_provider_replay';
export const CLAUDE = 'anthropic:claude-sonnet-4-6';
export const GPT = 'openai:gpt-5';
export const GEMINI = 'google:gemini-3-pro-preview';
export const DEEPSEEK = 'deepseek:deepseek-reasoner';

/** Strings that belong to one provider's signed reasoning and must never reach another. */
export const SECRETS = {
  claudeThinking: 'CLAUDE-THINKING-TEXT-the license is next',
  claudeSignature: 'CLAUDE-THINKING-SIG-EqQBCkgIBxABGAIiQ',
  claudeRedacted: 'CLAUDE-REDACTED-DATA-EmwKAhgB',
  gptSummary: 'GPT-SUMMARY-the LICENSE decides reuse',
  gptEncrypted: 'gAAAAABpGPT5-ENCRYPTED-REASONING-0001',
  geminiThought: 'GEMINI-THOUGHT-TEXT-search the tracker',
  geminiThoughtSignature: 'GEMINI-THOUGHT-SIG-CiQBjz1rX',
  geminiCallSignature: 'GEMINI-CALL-SIG-CiUBjz1rX',
  deepseekReasoning: 'DEEPSEEK-REASONING-notes come last',
} as const;

/** The MCP-style tool the Gemini turn called (fits Gemini's rule, not OpenAI's or Mistral's). */
export const MCP_TOOL = 'github.search_issues';

export const READ_FILE = {
  name: 'read_file',
  description: 'Read a UTF-8 text file from the workspace.',
  input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  side_effects: 'read' as const,
  requires_workspace: true,
};

const CLAUDE_TOOL_REPLY: ScriptedResponse = {
  type: 'json',
  body: {
    id: 'msg_01CrossReplayClaude0001',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-6',
    content: [
      { type: 'thinking', thinking: SECRETS.claudeThinking, signature: SECRETS.claudeSignature },
      { type: 'redacted_thinking', data: SECRETS.claudeRedacted },
      { type: 'text', text: "I'll read the README first." },
      {
        type: 'tool_use',
        id: 'toolu_01CrossReplayReadme00001',
        name: 'read_file',
        input: { path: 'README.md' },
      },
    ],
    stop_reason: 'tool_use',
    stop_sequence: null,
    usage: { input_tokens: 420, output_tokens: 60 },
  },
};

const GPT_TOOL_REPLY: ScriptedResponse = {
  type: 'json',
  body: {
    id: 'resp_cross_replay_0001',
    object: 'response',
    created_at: 1763800100,
    status: 'completed',
    error: null,
    incomplete_details: null,
    model: 'gpt-5-2025-08-07',
    output: [
      {
        id: 'rs_cross_replay_0001',
        type: 'reasoning',
        summary: [{ type: 'summary_text', text: SECRETS.gptSummary }],
        encrypted_content: SECRETS.gptEncrypted,
      },
      {
        id: 'fc_cross_replay_0001',
        type: 'function_call',
        status: 'completed',
        arguments: '{"path":"LICENSE"}',
        call_id: 'call_CrossReplayGpt5License0001',
        name: 'read_file',
      },
    ],
    usage: {
      input_tokens: 380,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 180,
      output_tokens_details: { reasoning_tokens: 128 },
      total_tokens: 560,
    },
  },
};

const DEEPSEEK_TOOL_REPLY: ScriptedResponse = {
  type: 'json',
  body: {
    id: 'ds-cross-replay-0001',
    object: 'chat.completion',
    created: 1763800200,
    model: 'deepseek-reasoner',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: '',
          reasoning_content: SECRETS.deepseekReasoning,
          tool_calls: [
            {
              index: 0,
              id: 'call_00_CrossReplayDeepSeek01',
              type: 'function',
              function: { name: 'read_file', arguments: '{"path":"NOTES.md"}' },
            },
          ],
        },
        finish_reason: 'tool_calls',
      },
    ],
    usage: { prompt_tokens: 600, completion_tokens: 50, total_tokens: 650 },
  },
};

/** A Claude reply cut off by its output limit: a history may end on it. */
const CLAUDE_CUT_REPLY: ScriptedResponse = {
  type: 'json',
  body: {
    id: 'msg_01CrossReplayClaudeCut01',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-6',
    content: [{ type: 'text', text: 'In short, the project is a small' }],
    stop_reason: 'max_tokens',
    stop_sequence: null,
    usage: { input_tokens: 900, output_tokens: 8 },
  },
};

/**
 * The Gemini 3 turn as `@yourtool/google` stores a reply with a thought summary, text and a
 * function call that had no id (the id map links the canonical id to itself for `google`).
 */
function geminiTurn(map: ToolIdMap): Message {
  const id = newToolUseId();
  map.set({ canonical_id: id, provider: 'google', provider_id: id });
  return createMessage({
    session_id: SESSION,
    role: 'assistant',
    content: [
      {
        type: 'thinking',
        text: SECRETS.geminiThought,
        signature: SECRETS.geminiThoughtSignature,
      },
      { type: 'text', text: 'Searching the tracker.' },
      { type: 'tool_use', id, name: MCP_TOOL, input: { query: 'crash on start' } },
    ],
    metadata: {
      model: GEMINI,
      provider: 'google',
      provider_raw: {
        google: {
          response_id: 'resp_cross_replay_gemini',
          model_version: 'gemini-3-pro-preview',
          finish_reason: 'STOP',
          thought_signatures: { tool_use: { [id]: SECRETS.geminiCallSignature } },
        },
      },
    },
  });
}

/**
 * The history, turn by turn: Claude reads README (then the user speaks right after the tool
 * result), GPT-5 reads LICENSE (its result holds an image), Gemini 3 searches issues with an
 * MCP tool, DeepSeek reasoner reads NOTES, and the user asks for a summary. With `endOnAssistant`
 * a cut-off Claude reply ends it.
 */
export async function mixedHistory(
  server: LoopbackServer,
  kit: ReplayKit,
  map: ToolIdMap,
  logger: Logger,
  endOnAssistant = false,
): Promise<Message[]> {
  const common = { api_key: 'replay-test-key-000000', base_url: server.url, max_retries: 0 };
  const claude = new AnthropicAdapter(common, { logger });
  const gpt = new OpenAIAdapter(
    { ...common, options: { api: 'responses', reasoning_summary: 'auto' } },
    { logger },
  );
  const deepseek = new DeepSeekAdapter(common, { logger });
  const thinking = { anthropic: { thinking: 'adaptive' } };
  const history: Message[] = [kit.user('Summarize README.md and LICENSE, then the open issues.')];

  server.enqueue(CLAUDE_TOOL_REPLY);
  const first = await kit.call(claude, CLAUDE, history, {
    toolIdMap: map,
    providerOptions: thinking,
  });
  history.push(kit.reply(first), kit.resultFor(first, '# Project Foo'));
  history.push(kit.user('Use the other model for the license.'));

  server.enqueue(GPT_TOOL_REPLY);
  const second = await kit.call(gpt, GPT, history, map);
  const license = kit.resultFor(second, 'MIT License');
  const withImage: Message = {
    ...license,
    content: license.content.map((block) =>
      block.type === 'tool_result'
        ? {
            ...block,
            content: [
              ...block.content,
              {
                type: 'image' as const,
                source: { kind: 'base64' as const, data: PNG_1PX_BASE64 },
                media_type: 'image/png',
              },
            ],
          }
        : block,
    ),
  };
  history.push(kit.reply(second), withImage);

  const gemini = geminiTurn(map);
  const geminiUse = gemini.content.find((b) => b.type === 'tool_use');
  history.push(
    gemini,
    createMessage({
      session_id: SESSION,
      role: 'tool',
      content: [
        {
          type: 'tool_result',
          tool_use_id: geminiUse?.type === 'tool_use' ? geminiUse.id : '',
          content: [{ type: 'text', text: '#12 crash on start (open)' }],
          is_error: false,
        },
      ],
    }),
  );

  server.enqueue(DEEPSEEK_TOOL_REPLY);
  const fourth = await kit.call(deepseek, DEEPSEEK, history, map);
  history.push(kit.reply(fourth), kit.resultFor(fourth, 'Ship on Friday.'));
  history.push(kit.user('Summarize all of it.'));

  if (endOnAssistant) {
    server.enqueue(CLAUDE_CUT_REPLY);
    const cut = await kit.call(claude, CLAUDE, history, {
      toolIdMap: map,
      providerOptions: thinking,
    });
    history.push(kit.reply(cut));
  }
  await Promise.all([claude.close(), gpt.close(), deepseek.close()]);
  return history;
}
