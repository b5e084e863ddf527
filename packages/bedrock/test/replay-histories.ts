import type { ReplayKit } from '@yourtool/conformance';
import {
  type ContentBlock,
  createMessage,
  type Message,
  newToolUseId,
  type ToolIdMap,
} from '@yourtool/core';
import { PNG_1PX_BASE64 } from '@yourtool/testkit';
import type { BedrockAdapter } from '../src/index.js';
import type { BedrockServer } from './bedrock-server.js';

/**
 * A mixed history as a session stores it, for cross-provider replay tests with Bedrock targets:
 * a Claude turn on Anthropic's API (signed and redacted thinking), a GPT-5 Responses turn
 * (encrypted reasoning kept as the thinking signature), a Gemini 3 turn (thought signatures, an
 * MCP-style dotted tool name), a Claude turn made on Bedrock through the real adapter (so a
 * Claude-on-Bedrock target gets its own reasoning back) and a DeepSeek reasoner turn (unsigned
 * reasoning). The non-Bedrock turns are written the way their adapters store them, since this
 * package does not depend on those adapters.
 */

export const SESSION = 'sess_bedrock_cross_replay';
export const CLAUDE_BEDROCK = 'bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0';
export const CLAUDE_DIRECT = 'anthropic:claude-sonnet-4-6';
export const GPT = 'openai:gpt-5';
export const GEMINI = 'google:gemini-3-pro-preview';
export const DEEPSEEK = 'deepseek:deepseek-reasoner';

const b64 = (text: string) => Buffer.from(text).toString('base64');

/** Strings of each model's reasoning: each may reach only the model that made it. */
export const SECRETS = {
  claudeThinking: 'CLAUDE-THINKING-TEXT-the license is next',
  claudeSignature: 'CLAUDE-THINKING-SIG-EqQBCkgIBxABGAIiQ',
  claudeRedacted: b64('CLAUDE-REDACTED-DATA-0001'),
  gptSummary: 'GPT-SUMMARY-the LICENSE decides reuse',
  gptEncrypted: 'gAAAAABpGPT5-ENCRYPTED-REASONING-0001',
  geminiThought: 'GEMINI-THOUGHT-TEXT-search the tracker',
  geminiThoughtSignature: 'GEMINI-THOUGHT-SIG-CiQBjz1rX',
  geminiCallSignature: 'GEMINI-CALL-SIG-CiUBjz1rX',
  bedrockThinking: 'BEDROCK-CLAUDE-THINKING-notes are next',
  bedrockSignature: 'BEDROCK-CLAUDE-SIG-EqQBCkgIBxABGAIiQ',
  bedrockRedacted: b64('BEDROCK-CLAUDE-REDACTED-0001'),
  deepseekReasoning: 'DEEPSEEK-REASONING-todo comes last',
} as const;

/** The secrets of the Claude-on-Bedrock turn: what a Claude-on-Bedrock target gets back. */
export const BEDROCK_CLAUDE_SECRETS: readonly string[] = [
  SECRETS.bedrockThinking,
  SECRETS.bedrockSignature,
  SECRETS.bedrockRedacted,
];

/** The MCP-style tool the Gemini turn called (fits Gemini's rule, not Converse's). */
export const MCP_TOOL = 'github.search_issues';

export const READ_FILE = {
  name: 'read_file',
  description: 'Read a UTF-8 text file from the workspace.',
  input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  side_effects: 'read' as const,
  requires_workspace: true,
};

/** The provider ids of the stored turns' calls (none may reach Bedrock as is). */
export const FOREIGN_CALL_IDS = [
  'toolu_01CrossReplayReadme00001',
  'call_CrossReplayGpt5License0001',
  'call_00_CrossReplayDeepSeek01',
] as const;

/** The Converse reply of the Claude-on-Bedrock turn: reasoning, redacted reasoning, a call. */
export const BEDROCK_CLAUDE_REPLY = {
  output: {
    message: {
      role: 'assistant',
      content: [
        {
          reasoningContent: {
            reasoningText: { text: SECRETS.bedrockThinking, signature: SECRETS.bedrockSignature },
          },
        },
        { reasoningContent: { redactedContent: SECRETS.bedrockRedacted } },
        { text: 'Now the notes.' },
        {
          toolUse: {
            toolUseId: 'tooluse_CrossReplayBedrock01',
            name: 'read_file',
            input: { path: 'NOTES.md' },
          },
        },
      ],
    },
  },
  stopReason: 'tool_use',
  usage: { inputTokens: 700, outputTokens: 90, totalTokens: 790 },
  metrics: { latencyMs: 300 },
};

/** A stored assistant turn of `model` whose one call (`id` on the provider) reads `path`. */
function storedTurn(
  map: ToolIdMap,
  turn: { model: string; providerId: string; blocks: ContentBlock[]; path: string },
): Message {
  const id = newToolUseId();
  const provider = turn.model.split(':')[0] ?? '';
  map.set({ canonical_id: id, provider, provider_id: turn.providerId });
  return createMessage({
    session_id: SESSION,
    role: 'assistant',
    content: [
      ...turn.blocks,
      { type: 'tool_use', id, name: 'read_file', input: { path: turn.path } },
    ],
    metadata: { model: turn.model, provider },
  });
}

/** The tool message answering the last call of `turn`. */
function resultOf(turn: Message, content: ContentBlock[], isError = false): Message {
  const use = turn.content.findLast((b) => b.type === 'tool_use');
  const id = use?.type === 'tool_use' ? use.id : '';
  return createMessage({
    session_id: SESSION,
    role: 'tool',
    content: [
      { type: 'tool_result', tool_use_id: id, content: content as never, is_error: isError },
    ],
    metadata: { parent_tool_use_id: id },
  });
}

/** The Gemini 3 turn as `@yourtool/google` stores one (signatures in `provider_raw.google`). */
function geminiTurn(map: ToolIdMap): Message {
  const id = newToolUseId();
  map.set({ canonical_id: id, provider: 'google', provider_id: id });
  return createMessage({
    session_id: SESSION,
    role: 'assistant',
    content: [
      { type: 'thinking', text: SECRETS.geminiThought, signature: SECRETS.geminiThoughtSignature },
      { type: 'text', text: 'Searching the tracker.' },
      { type: 'tool_use', id, name: MCP_TOOL, input: { query: 'crash on start' } },
    ],
    metadata: {
      model: GEMINI,
      provider: 'google',
      provider_raw: {
        google: {
          model_version: 'gemini-3-pro-preview',
          finish_reason: 'STOP',
          thought_signatures: { tool_use: { [id]: SECRETS.geminiCallSignature } },
        },
      },
    },
  });
}

const text = (t: string): ContentBlock => ({ type: 'text', text: t });

/**
 * The history: Claude (Anthropic) reads README, the user speaks right after its result; GPT-5
 * reads LICENSE (the result holds an image); Gemini 3 searches issues with an MCP tool (the
 * result is an error); Claude on Bedrock reads NOTES through the real adapter; DeepSeek reasoner
 * reads TODO; the user asks for a summary.
 */
export async function mixedHistory(
  server: BedrockServer,
  kit: ReplayKit,
  map: ToolIdMap,
  bedrock: BedrockAdapter,
): Promise<Message[]> {
  const history: Message[] = [kit.user('Summarize README.md and LICENSE, then the open issues.')];
  const claude = storedTurn(map, {
    model: CLAUDE_DIRECT,
    providerId: FOREIGN_CALL_IDS[0],
    path: 'README.md',
    blocks: [
      { type: 'thinking', text: SECRETS.claudeThinking, signature: SECRETS.claudeSignature },
      { type: 'redacted_thinking', data: SECRETS.claudeRedacted },
      text("I'll read the README first."),
    ],
  });
  history.push(claude, resultOf(claude, [text('# Project Foo')]));
  history.push(kit.user('Use the other model for the license.'));

  const gpt = storedTurn(map, {
    model: GPT,
    providerId: FOREIGN_CALL_IDS[1],
    path: 'LICENSE',
    blocks: [{ type: 'thinking', text: SECRETS.gptSummary, signature: SECRETS.gptEncrypted }],
  });
  const image: ContentBlock = {
    type: 'image',
    source: { kind: 'base64', data: PNG_1PX_BASE64 },
    media_type: 'image/png',
  };
  history.push(gpt, resultOf(gpt, [text('MIT License'), image]));

  const gemini = geminiTurn(map);
  history.push(gemini, resultOf(gemini, [text('GitHub: rate limit exceeded')], true));

  server.enqueue({ json: BEDROCK_CLAUDE_REPLY });
  const onBedrock = await kit.call(bedrock, CLAUDE_BEDROCK, history, {
    toolIdMap: map,
    providerOptions: { bedrock: { thinking: 'adaptive' } },
  });
  const stored = kit.reply(onBedrock);
  history.push(stored, kit.resultFor(onBedrock, 'Ship on Friday.'));

  const deepseek = storedTurn(map, {
    model: DEEPSEEK,
    providerId: FOREIGN_CALL_IDS[2],
    path: 'TODO.md',
    blocks: [{ type: 'thinking', text: SECRETS.deepseekReasoning }],
  });
  history.push(deepseek, resultOf(deepseek, [text('- release notes')]));
  history.push(kit.user('Summarize all of it.'));
  return history;
}
