import {
  type ContentBlock,
  epochMicrosToTimestamp,
  type Message,
  MessageSchema,
  newMessageId,
  newToolUseId,
  type ToolDefinition,
  type ToolResultContentBlock,
} from '@yourtool/core';

/** A small deterministic PRNG (mulberry32), so every run builds the same data. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'the a model session history tool result stream token provider adapter message reply ' +
  'file function argument value latency cost router store batch cache image request answer ' +
  'quickly carefully because therefore however although read write parse encode decode check'
).split(' ');

/** `count` pseudo-random words joined by spaces. */
export function words(random: () => number, count: number): string {
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push(WORDS[Math.floor(random() * WORDS.length)] as string);
  return out.join(' ');
}

/** Base64 of `bytes` pseudo-random bytes (stands in for a PNG: only the size matters here). */
export function base64Blob(random: () => number, bytes: number): string {
  const buffer = Buffer.alloc(bytes);
  for (let i = 0; i < bytes; i++) buffer[i] = Math.floor(random() * 256);
  return buffer.toString('base64');
}

/** The tools the benchmark's requests offer. */
export const BENCH_TOOLS: ToolDefinition[] = [
  {
    name: 'read_file',
    description: 'Read a file of the workspace.',
    input_schema: {
      type: 'object',
      properties: { path: { type: 'string' }, limit: { type: 'integer' } },
      required: ['path'],
    },
    side_effects: 'read',
    requires_workspace: true,
  },
  {
    name: 'search',
    description: 'Search the workspace for a query.',
    input_schema: {
      type: 'object',
      properties: { query: { type: 'string' }, options: { type: 'object' } },
      required: ['query'],
    },
    side_effects: 'read',
    requires_workspace: true,
  },
];

/** Options of {@link buildSession}. */
export interface SessionShape {
  sessionId: string;
  /** Number of messages (a multiple of 5 keeps every turn whole). */
  messages: number;
  /** Size of each image before base64, in bytes. Default 6,000. */
  imageBytes?: number;
  /** The model the assistant messages say they came from. */
  model?: string;
  seed?: number;
}

/**
 * A canonical session of turns of five messages: a user message (every tenth turn with a
 * base64 image), an assistant message with text and two tool uses, the two tool results (every
 * fifth turn's first result holds an image), and an assistant answer. Messages are validated
 * against core's schema, timestamps a millisecond apart.
 */
export function buildSession(shape: SessionShape): Message[] {
  const random = prng(shape.seed ?? 42);
  const imageBytes = shape.imageBytes ?? 6_000;
  const model = shape.model ?? 'anthropic:claude-sonnet-4-6';
  const provider = model.slice(0, model.indexOf(':'));
  const start = Date.UTC(2026, 0, 1) * 1000;
  const out: Message[] = [];
  // what a complete assistant message carries (canonical-format §5): model, provider, routing, usage
  const assistantMeta = () => ({
    model,
    provider,
    routing: {
      mode: 'default',
      chosen_model: model,
      reason: 'global default',
      rule_name: null,
      confidence: null,
      alternatives_considered: [],
    },
    usage: {
      input_tokens: 1200 + out.length,
      output_tokens: 80,
      cached_input_tokens: 0,
      cache_creation_input_tokens: 0,
      cost_usd: '0.0048',
      pricing_version: 'bench',
      latency_ms: 900,
    },
  });
  const push = (role: Message['role'], content: ContentBlock[], metadata = {}) => {
    const i = out.length;
    out.push(
      MessageSchema.parse({
        id: newMessageId(),
        session_id: shape.sessionId,
        role,
        content,
        metadata: { status: 'complete', ...metadata },
        created_at: epochMicrosToTimestamp(start + i * 1000),
        schema_version: 1,
      }),
    );
  };
  for (let turn = 0; out.length < shape.messages; turn++) {
    const user: ContentBlock[] = [{ type: 'text', text: words(random, 20 + (turn % 30)) }];
    if (turn % 10 === 0) {
      user.push({
        type: 'image',
        media_type: 'image/png',
        source: { kind: 'base64', data: base64Blob(random, imageBytes) },
      });
    }
    push('user', user);
    const ids = [newToolUseId(), newToolUseId()];
    push(
      'assistant',
      [
        { type: 'text', text: words(random, 15) },
        {
          type: 'tool_use',
          id: ids[0] as string,
          name: 'read_file',
          input: { path: `src/module_${turn}.ts`, limit: 200 },
        },
        {
          type: 'tool_use',
          id: ids[1] as string,
          name: 'search',
          input: { query: words(random, 4), options: { recursive: true, max: turn % 50 } },
        },
      ],
      assistantMeta(),
    );
    const firstResult: ToolResultContentBlock[] = [{ type: 'text', text: words(random, 60) }];
    if (turn % 5 === 0) {
      firstResult.push({
        type: 'image',
        media_type: 'image/png',
        source: { kind: 'base64', data: base64Blob(random, imageBytes) },
      });
    }
    push(
      'tool',
      [
        {
          type: 'tool_result',
          tool_use_id: ids[0] as string,
          content: firstResult,
          is_error: false,
        },
      ],
      { parent_tool_use_id: ids[0] },
    );
    push(
      'tool',
      [
        {
          type: 'tool_result',
          tool_use_id: ids[1] as string,
          content: [{ type: 'text', text: words(random, 30) }],
          is_error: turn % 7 === 0,
        },
      ],
      { parent_tool_use_id: ids[1] },
    );
    push('assistant', [{ type: 'text', text: words(random, 40) }], assistantMeta());
  }
  return out.slice(0, shape.messages);
}
