import {
  AdapterError,
  type ContentBlock,
  createMemoryLogger,
  createMessage,
  type Message,
  newRequestId,
  newToolUseId,
  ToolIdMap,
} from '@yourtool/core';
import { PNG_1PX_BASE64 } from '@yourtool/testkit';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BedrockAdapter } from '../src/index.js';
import { type AwsSandbox, awsSandbox } from './aws-env.js';
import { type BedrockServer, startBedrockServer } from './bedrock-server.js';
import { bedrockViolations, FAMILY_FACTS, type WireBody } from './cross-provider-replay-rules.js';
import { converseReply } from './transport-context.js';

/**
 * Random histories, as sessions store them after model swaps, imports and interrupted turns,
 * replayed to Mistral and Claude on Bedrock through the real SDK against the loopback server:
 * every request body must pass the Bedrock validator of ./cross-provider-replay-rules.ts, or
 * the call must be refused as invalid before anything is sent.
 */

const CLAUDE = 'bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const MISTRAL = 'bedrock:mistral.mistral-large-2407-v1:0';
const OTHERS = ['bedrock:us.amazon.nova-pro-v1:0', 'anthropic:claude-sonnet-4-6', 'openai:gpt-5'];
const SESSION = 'sess_bedrock_random';
const READ_FILE = {
  name: 'read_file',
  description: 'Read a file.',
  input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  side_effects: 'read' as const,
};

let server: BedrockServer;
let sandbox: AwsSandbox;
beforeAll(async () => {
  server = await startBedrockServer();
});
afterAll(() => server.close());
beforeEach(() => {
  sandbox = awsSandbox();
});
afterEach(() => sandbox.dispose());

/** The reasoning a model writes in these histories (each model's strings are its own). */
const reasoningOf = (model: string) => ({
  text: `thought-by-${model}`,
  signature: `sig-by-${model}`,
  redacted: Buffer.from(`redacted-by-${model}`).toString('base64'),
});

type ImageKind = 'none' | 'png' | 'bmp' | 'url';
const IMAGES: Record<Exclude<ImageKind, 'none'>, ContentBlock> = {
  png: { type: 'image', source: { kind: 'base64', data: PNG_1PX_BASE64 }, media_type: 'image/png' },
  bmp: {
    type: 'image',
    source: { kind: 'base64', data: 'Qk0eAAAAAAAAAA==' },
    media_type: 'image/bmp',
  },
  url: {
    type: 'image',
    source: { kind: 'url', data: 'https://example.com/a.png' },
    media_type: 'image/png',
  },
};
const imageBlocks = (kind: ImageKind): ContentBlock[] => (kind === 'none' ? [] : [IMAGES[kind]]);
const TEXTS = ['Read it.', 'Done.', '   ', '', '\n', 'Summarize README.md'];

/** A stored message, or an assistant turn with its results, as data (so counterexamples read). */
type Step =
  | { kind: 'system' }
  | { kind: 'user'; text: string | undefined; image: ImageKind }
  | {
      kind: 'assistant';
      text: string | undefined;
      reasoning: 'none' | 'signed' | 'unsigned' | 'redacted' | 'both';
      calls: number;
      answered: boolean[];
      resultImages: ImageKind[];
      errors: boolean[];
      reversed: boolean;
      author: 'target' | number;
      status: 'complete' | 'cancelled';
    };

const text = fc.option(fc.constantFrom(...TEXTS), { nil: undefined });
const image = fc.constantFrom<ImageKind>('none', 'none', 'png', 'bmp', 'url');
const triple = <T>(a: fc.Arbitrary<T>) => fc.array(a, { minLength: 3, maxLength: 3 });
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.constant({ kind: 'system' as const }),
  fc.record({ kind: fc.constant('user' as const), text, image }),
  fc.record({
    kind: fc.constant('assistant' as const),
    text,
    reasoning: fc.constantFrom('none', 'signed', 'unsigned', 'redacted', 'both'),
    calls: fc.integer({ min: 0, max: 3 }),
    answered: triple(fc.boolean()),
    resultImages: triple(image),
    errors: triple(fc.boolean()),
    reversed: fc.boolean(),
    author: fc.oneof(fc.constant('target' as const), fc.integer({ min: 0, max: 2 })),
    status: fc.constantFrom('complete' as const, 'complete' as const, 'cancelled' as const),
  }),
);

const message = (role: Message['role'], content: ContentBlock[], metadata = {}) =>
  createMessage({ session_id: SESSION, role, content, metadata });

/** The reasoning blocks an assistant step carries, written by `model`. */
function reasoningBlocks(kind: Extract<Step, { kind: 'assistant' }>['reasoning'], model: string) {
  const r = reasoningOf(model);
  const blocks: ContentBlock[] = [];
  if (kind === 'signed' || kind === 'both') {
    blocks.push({ type: 'thinking', text: r.text, signature: r.signature });
  }
  if (kind === 'unsigned') blocks.push({ type: 'thinking', text: r.text });
  if (kind === 'redacted' || kind === 'both')
    blocks.push({ type: 'redacted_thinking', data: r.redacted });
  return blocks;
}

/** The messages a step adds to the history sent to `target`. */
function messagesOf(s: Step, target: string): Message[] {
  if (s.kind === 'system') return [message('system', [{ type: 'text', text: 'Be brief.' }])];
  if (s.kind === 'user') {
    const content = [
      ...(s.text !== undefined ? [{ type: 'text' as const, text: s.text }] : []),
      ...imageBlocks(s.image),
    ];
    return [message('user', content.length > 0 ? content : [{ type: 'text', text: 'Go on.' }])];
  }
  const ids = Array.from({ length: s.calls }, () => newToolUseId());
  const model = s.author === 'target' ? target : (OTHERS[s.author] ?? target);
  const turn = message(
    'assistant',
    [
      ...reasoningBlocks(s.reasoning, model),
      ...(s.text !== undefined ? [{ type: 'text' as const, text: s.text }] : []),
      ...ids.map((id, i) => ({
        type: 'tool_use' as const,
        id,
        name: i === 2 ? 'github.search_issues' : 'read_file',
        input: { path: `file-${i}.md` },
      })),
    ],
    { model, provider: model.split(':')[0], status: s.status },
  );
  const results = ids.flatMap((id, i) =>
    s.answered[i]
      ? [
          message(
            'tool',
            [
              {
                type: 'tool_result',
                tool_use_id: id,
                content: [
                  { type: 'text', text: i === 1 ? ' ' : `contents of file-${i}.md` },
                  ...imageBlocks(s.resultImages[i] ?? 'none'),
                ] as never,
                is_error: s.errors[i] ?? false,
              },
            ],
            { parent_tool_use_id: id },
          ),
        ]
      : [],
  );
  return [turn, ...(s.reversed ? results.reverse() : results)];
}

/** A history of 1 to 8 steps, any of them first, to Claude or Mistral, with or without extras. */
const histories = fc.record({
  steps: fc.array(step, { minLength: 1, maxLength: 8 }),
  target: fc.constantFrom(CLAUDE, MISTRAL),
  systemPrompt: fc.option(fc.constantFrom('You read files.', '  '), { nil: undefined }),
  offerTools: fc.boolean(),
  thinking: fc.constantFrom('off' as const, 'adaptive' as const),
  promptCaching: fc.boolean(),
});

describe('random histories replayed to Claude and Mistral on Bedrock', () => {
  it('always go out as a request Bedrock takes, or are refused before sending', async () => {
    await fc.assert(
      fc.asyncProperty(histories, async (h) => {
        server.reset();
        server.enqueue({ json: converseReply('ok') });
        const adapter = new BedrockAdapter(
          {
            api_key: 'ABSKcmFuZG9tLWhpc3Rvcmllcy10ZXN0LWtleQ==',
            base_url: server.h2Url,
            max_retries: 0,
            options: { region: 'us-east-1' },
          },
          { logger: createMemoryLogger() },
        );
        try {
          await adapter.complete(
            {
              request_id: newRequestId(),
              model: h.target,
              max_output_tokens: 2048,
              messages: h.steps.flatMap((s) => messagesOf(s, h.target)),
              tools: h.offerTools ? [READ_FILE] : [],
              ...(h.systemPrompt ? { system_prompt: h.systemPrompt } : {}),
            },
            {
              toolIdMap: new ToolIdMap(),
              providerOptions: {
                bedrock: { thinking: h.thinking, promptCaching: h.promptCaching },
              },
            },
          );
        } catch (error) {
          // nothing left to send (every message dropped): refused before any request
          expect(error).toBeInstanceOf(AdapterError);
          expect((error as AdapterError).error_class).toBe('invalid_request');
          expect(server.requests).toHaveLength(0);
          return;
        } finally {
          await adapter.close();
        }
        const body = JSON.parse(server.requests.at(-1)?.body ?? '{}') as WireBody;
        const family = h.target === CLAUDE ? FAMILY_FACTS.claude : FAMILY_FACTS.mistral;
        const own = reasoningOf(h.target);
        const rules = { family, ownReasoning: [own.text, own.signature, own.redacted] };
        expect(bedrockViolations(body, rules), JSON.stringify(body)).toEqual([]);
      }),
      {
        numRuns: 250,
        // found by this test: a lone URL image left the codec no turn, and `messages: []` went out
        examples: [
          [
            {
              steps: [{ kind: 'user', text: undefined, image: 'url' }],
              target: CLAUDE,
              systemPrompt: undefined,
              offerTools: false,
              thinking: 'off',
              promptCaching: false,
            },
          ],
          // a history ending in the target's reasoning-only turn: no cache point may follow it
          [
            {
              steps: [
                { kind: 'user', text: 'Read it.', image: 'none' },
                {
                  kind: 'assistant',
                  text: undefined,
                  reasoning: 'signed',
                  calls: 0,
                  answered: [false, false, false],
                  resultImages: ['none', 'none', 'none'],
                  errors: [false, false, false],
                  reversed: false,
                  author: 'target',
                  status: 'complete',
                },
              ],
              target: CLAUDE,
              systemPrompt: undefined,
              offerTools: false,
              thinking: 'off',
              promptCaching: true,
            },
          ],
        ],
      },
    );
  }, 120_000);
});
