import { fileURLToPath } from 'node:url';
import { createOpenAI } from '@ai-sdk/openai';
import { loadFixtureDirectory } from '@yourtool/conformance';
import { describeAdapterConformance } from '@yourtool/conformance/vitest';
import { OPENAI_TOOL_ID_RULES } from '@yourtool/core';
// The OpenAI package's inspectors and recorded replies: the AI SDK models speak the same wires.
import { responsesWire } from '../../openai/test/responses-wire.js';
import { chatCompletionsWire } from '../../openai/test/wire.js';
import { AiSdkAdapter, type AnyLanguageModel } from '../src/index.js';

const fixtures = (dir: string) =>
  loadFixtureDirectory(fileURLToPath(new URL(`../../openai/test/${dir}`, import.meta.url)));

const FINISH_HIDES_STOP_SEQUENCE =
  "the AI SDK's finish reason `stop` does not tell a stop sequence from the end of the turn";
const RESPONSES_REASONING =
  'reasoning summaries and encrypted-only items are kept as provider metadata (replayed to the same model), not yet as signed and redacted thinking blocks';

type Context = Parameters<Parameters<typeof describeAdapterConformance>[0]['createAdapter']>[0];

function adapter(
  name: string,
  model: (openai: ReturnType<typeof createOpenAI>) => AnyLanguageModel,
) {
  return ({
    baseUrl,
    apiKey,
    maxRetries,
    logger,
    retry,
    timeoutSeconds,
    idleTimeoutSeconds,
  }: Context) =>
    new AiSdkAdapter(model(createOpenAI({ apiKey, baseURL: `${baseUrl}/v1` })), {
      name,
      config: {
        api_key: apiKey,
        max_retries: maxRetries,
        timeout_seconds: timeoutSeconds,
        idle_timeout_seconds: idleTimeoutSeconds,
      },
      runtime: { logger, retry },
      capabilities: { supports_structured_output: true, supports_thinking: true },
    });
}

// GPT-4.1 on Chat Completions through `openai.chat`: temperature and stop sequences go on the wire.
describeAdapterConformance({
  name: 'aisdk-openai-chat',
  model: 'aisdk-openai-chat:gpt-4.1',
  createAdapter: adapter('aisdk-openai-chat', (openai) => openai.chat('gpt-4.1')),
  fixtures: { ...fixtures('fixtures'), ...fixtures('fixtures-gpt-4.1') },
  wire: chatCompletionsWire,
  toolIdRules: OPENAI_TOOL_ID_RULES,
  codec: { roundTrip: (content) => content },
  skip: {
    sampling: FINISH_HIDES_STOP_SEQUENCE,
    'tool-result-error':
      'the AI SDK chat model sends an error result as plain tool content: Chat Completions has no error flag',
    'tool-result-image':
      'the AI SDK chat model sends tool results as text only: images in a tool result do not reach the wire',
    thinking: 'the AI SDK chat model does not read reasoning from Chat Completions replies',
    'thinking-stream':
      'the AI SDK chat model does not read reasoning from Chat Completions streams',
  },
  features: {
    interleavedToolFragments: true,
    temperature: 'sent',
    stopSequences: 'sent',
    toolNameWarnings: 'logged',
    callOptions: 'none',
    configOptions: 'none',
  },
});

// GPT-5 on the Responses API through `openai.responses`.
describeAdapterConformance({
  name: 'aisdk-openai-responses',
  model: 'aisdk-openai-responses:gpt-5',
  createAdapter: adapter('aisdk-openai-responses', (openai) => openai.responses('gpt-5')),
  fixtures: fixtures('fixtures-responses'),
  wire: responsesWire,
  toolIdRules: OPENAI_TOOL_ID_RULES,
  codec: { roundTrip: (content) => content },
  skip: {
    'system-prompt':
      'the AI SDK Responses model sends the system prompt of a reasoning model as a developer message',
    sampling:
      'the AI SDK Responses model drops stop sequences (the API has none) with a warning; the bridge does not emulate them',
    'stop-sequences-emulated-stream':
      'the bridge does not emulate stop sequences an AI SDK model drops',
    'tool-result-error':
      'the AI SDK Responses model sends an error result as plain output text: the API has no error flag',
    thinking: RESPONSES_REASONING,
    'thinking-stream': RESPONSES_REASONING,
    'thinking-replay': RESPONSES_REASONING,
  },
  features: {
    interleavedToolFragments: true,
    signedThinking: true,
    redactedThinking: true,
    temperature: 'sent',
    stopSequences: 'emulated',
    toolNameWarnings: 'logged',
    callOptions: 'none',
    configOptions: 'none',
  },
});
