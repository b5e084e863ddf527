import { fileURLToPath } from 'node:url';
import {
  type LoopbackServer,
  loadFixtureDirectory,
  startLoopbackServer,
} from '@yourtool/conformance';
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
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MistralAdapter } from '../src/index.js';

/**
 * Random histories, as sessions store them after model swaps, imports and interrupted turns,
 * replayed to the `mistral` preset through the real `openai` SDK against the loopback server:
 * every request body must pass Mistral's request validator (mistral-common, serving mode, and
 * the La Plateforme rules the preset's `request_order` satisfies). Issue 35: one replayed
 * history in 871 still started with an assistant message ("Conversation must start with a user
 * message or system message").
 */

const fixtures = loadFixtureDirectory(
  fileURLToPath(new URL('./fixtures-mistral', import.meta.url)),
);
const LARGE = 'mistral:mistral-large-latest';
const SMALL = 'mistral:mistral-small-latest';
const CLAUDE = 'anthropic:claude-sonnet-4-6';
const SESSION = 'sess_mistral_random';
const MISTRAL_ID = /^[a-zA-Z0-9]{9}$/;
const READ_FILE = {
  name: 'read_file',
  description: 'Read a file.',
  input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  side_effects: 'read' as const,
};

type WireMessage = {
  role: string;
  content?: unknown;
  prefix?: boolean;
  tool_calls?: Array<{ id: string }>;
  tool_call_id?: string;
};

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());

/** The roles mistral-common accepts after each role, minus `tool, user` (the preset's rule). */
const NEXT_ROLES: Record<string, readonly string[]> = {
  system: ['user', 'assistant', 'system'],
  user: ['assistant', 'system', 'user'],
  assistant: ['assistant', 'user', 'tool'],
  tool: ['assistant', 'tool'],
};

const isBlank = (content: unknown) =>
  content === undefined ||
  content === null ||
  (typeof content === 'string' && content.trim() === '') ||
  (Array.isArray(content) && content.length === 0);

/** What Mistral's validator refuses in a request's messages, one line each. */
function mistralViolations(messages: WireMessage[]): string[] {
  const problems: string[] = [];
  if (messages.length === 0) return ['Conversation must have at least one message'];
  const first = messages.find((m) => m.role !== 'system');
  if (first && first.role !== 'user') {
    problems.push(`Conversation must start with a user message or system message (${first.role})`);
  }
  messages.forEach((m, i) => {
    const previous = messages[i - 1];
    if (previous && !NEXT_ROLES[previous.role]?.includes(m.role)) {
      problems.push(`Unexpected role '${m.role}' after role '${previous.role}' at ${i}`);
    }
    if (m.prefix === true && i !== messages.length - 1) {
      problems.push(`Assistant message with prefix True must be last message (${i})`);
    }
    if (m.role === 'assistant' && isBlank(m.content) && !m.tool_calls?.length) {
      problems.push(`Assistant message must have either content or tool_calls (${i})`);
    }
    if (m.role === 'user' && isBlank(m.content)) problems.push(`empty user message at ${i}`);
    for (const id of [...(m.tool_calls ?? []).map((c) => c.id), m.tool_call_id ?? 'ok0000000']) {
      if (!MISTRAL_ID.test(id)) problems.push(`Tool call id was ${id} at ${i}`);
    }
    if (m.role === 'assistant' && m.tool_calls?.length) {
      const answers = messages.slice(i + 1, i + 1 + m.tool_calls.length);
      const ids = answers.map((a) => (a.role === 'tool' ? a.tool_call_id : undefined));
      if (JSON.stringify(ids) !== JSON.stringify(m.tool_calls.map((c) => c.id))) {
        problems.push(`Not the same number of function calls and responses at ${i}`);
      }
    }
  });
  const last = messages.at(-1) as WireMessage;
  if (last.role === 'assistant' ? last.prefix !== true : last.role === 'system') {
    problems.push(
      `Expected last role User or Tool (or Assistant with prefix True), got ${last.role}`,
    );
  }
  return problems;
}

const image: ContentBlock = {
  type: 'image',
  source: { kind: 'base64', data: PNG_1PX_BASE64 },
  media_type: 'image/png',
};
const TEXTS = ['Read it.', 'Done.', '   ', '', 'Summarize README.md', 'Here is the file.'];

/** A stored message, or an assistant turn with its results, as data (so counterexamples read). */
type Step =
  | { kind: 'system' }
  | { kind: 'user'; text: string | undefined; image: boolean }
  | {
      kind: 'assistant';
      text: string | undefined;
      thinking: boolean;
      calls: number;
      answered: boolean[];
      resultImages: boolean[];
      reversed: boolean;
      author: string;
      status: 'complete' | 'cancelled';
    };

const text = fc.option(fc.constantFrom(...TEXTS), { nil: undefined });
const flags = fc.array(fc.boolean(), { minLength: 3, maxLength: 3 });
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.constant({ kind: 'system' as const }),
  fc
    .record({ kind: fc.constant('user' as const), text, image: fc.boolean() })
    .filter((u) => u.text !== undefined || u.image),
  fc
    .record({
      kind: fc.constant('assistant' as const),
      text,
      thinking: fc.boolean(),
      calls: fc.integer({ min: 0, max: 3 }),
      answered: flags,
      resultImages: flags,
      reversed: fc.boolean(),
      author: fc.constantFrom(LARGE, SMALL, CLAUDE, 'target'),
      status: fc.constantFrom('complete' as const, 'complete' as const, 'cancelled' as const),
    })
    .filter((a) => a.text !== undefined || a.thinking || a.calls > 0),
);

const message = (role: Message['role'], content: ContentBlock[], metadata = {}) =>
  createMessage({ session_id: SESSION, role, content, metadata });

/** The messages a step adds to the history sent to `target`. */
function messagesOf(s: Step, target: string): Message[] {
  if (s.kind === 'system') return [message('system', [{ type: 'text', text: 'Be brief.' }])];
  if (s.kind === 'user') {
    return [
      message('user', [
        ...(s.text !== undefined ? [{ type: 'text' as const, text: s.text }] : []),
        ...(s.image ? [image] : []),
      ]),
    ];
  }
  const ids = Array.from({ length: s.calls }, () => newToolUseId());
  const model = s.author === 'target' ? target : s.author;
  const turn = message(
    'assistant',
    [
      ...(s.thinking
        ? [{ type: 'thinking' as const, text: 'Plan first.', signature: 'sig-elsewhere' }]
        : []),
      ...(s.text !== undefined ? [{ type: 'text' as const, text: s.text }] : []),
      ...ids.map((id, i) => ({
        type: 'tool_use' as const,
        id,
        name: 'read_file',
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
                  { type: 'text', text: `contents of file-${i}.md` },
                  ...(s.resultImages[i] ? [image] : []),
                ] as never,
                is_error: false,
              },
            ],
            { parent_tool_use_id: id },
          ),
        ]
      : [],
  );
  return [turn, ...(s.reversed ? results.reverse() : results)];
}

/** A history of 1 to 8 steps, any of them first (a seeded greeting, a dropped first message). */
const histories = fc.record({
  steps: fc.array(step, { minLength: 1, maxLength: 8 }),
  target: fc.constantFrom(LARGE, SMALL),
  systemPrompt: fc.option(fc.constant('You read files.'), { nil: undefined }),
});

describe('random histories replayed to the mistral preset', () => {
  it('always go out as a request Mistral’s validator accepts, or are refused before sending', async () => {
    await fc.assert(
      fc.asyncProperty(histories, async ({ steps, target, systemPrompt }) => {
        server.reset();
        server.enqueue(...(fixtures.text ?? []));
        const messages = steps.flatMap((s) => messagesOf(s, target));
        const adapter = new MistralAdapter(
          { api_key: 'mistral-test-key', base_url: server.url, max_retries: 0 },
          { logger: createMemoryLogger() },
        );
        try {
          await adapter.complete(
            {
              request_id: newRequestId(),
              model: target,
              max_output_tokens: 64,
              messages,
              tools: [READ_FILE],
              ...(systemPrompt ? { system_prompt: systemPrompt } : {}),
            },
            { toolIdMap: new ToolIdMap() },
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
        const body = server.requests.at(-1)?.body as { messages: WireMessage[] };
        expect(mistralViolations(body.messages), JSON.stringify(body.messages)).toEqual([]);
      }),
      { numRuns: 300 },
    );
    // 300 calls through the SDK: about 5 s idle, past 30 s at a load average of 17
  }, 120_000);
});
