/**
 * What every generated streaming response shares: the providers, the content plan (text deltas
 * and tool calls cut into fragments), what a correct client must see, and the plan as the reply
 * `@yourtool/wire-formats` renders in each format (wire.ts, responses-wire.ts).
 */
import type { BlockPart, MessageReply, Splitter } from '@yourtool/wire-formats';
import { prng, words } from '../lib/session.js';

/** The wire formats the streaming benchmark serves (Gemini's is google-wire.ts, served apart). */
export const STREAM_PROVIDERS = [
  'anthropic',
  'openai',
  'openai-responses',
  'openrouter',
  'ollama',
] as const;
/** One of {@link STREAM_PROVIDERS}. */
export type StreamProvider = (typeof STREAM_PROVIDERS)[number];

/** What a correct client must see in a stream. */
export interface ExpectedContent {
  /** The whole text. */
  text: string;
  /** Non-empty text deltas on the wire. */
  textDeltas: number;
  /** Non-empty tool-argument fragments on the wire (whole tool calls count one each). */
  toolFragments: number;
  tools: Array<{ name: string; input: Record<string, unknown> }>;
}

/** A long response in one provider's wire format. */
export interface WireStream {
  provider: StreamProvider;
  contentType: 'text/event-stream' | 'application/x-ndjson';
  /** Each a whole SSE event or NDJSON line. */
  events: string[];
  /** Data events a client's parser yields (SSE events with data, NDJSON lines). */
  dataEvents: number;
  expected: ExpectedContent;
}

/** Sizes of the generated response. */
export interface StreamSize {
  textDeltas: number;
  tools: number;
  /** Edits in each tool call's arguments (about 60 bytes of JSON each). */
  editsPerTool: number;
}

/** At least 10,000 text deltas and three tool calls of about 2.5 KB of arguments each. */
export const DEFAULT_STREAM_SIZE: StreamSize = { textDeltas: 10_000, tools: 3, editsPerTool: 40 };

/** The content of a generated response, before it is put in a wire format. */
export interface Plan {
  deltas: string[];
  tools: Array<{ name: string; input: Record<string, unknown>; fragments: string[] }>;
}

/** The same content for every provider: text deltas and tool calls cut into fragments. */
export function plan(size: StreamSize): Plan {
  const random = prng(7);
  const deltas: string[] = [];
  for (let i = 0; i < size.textDeltas; i++) {
    deltas.push(`${i === 0 ? '' : ' '}${words(random, 1 + Math.floor(random() * 2))}`);
  }
  const tools: Plan['tools'] = [];
  for (let t = 0; t < size.tools; t++) {
    const input = {
      path: `src/generated/file_${t}.ts`,
      edits: Array.from({ length: size.editsPerTool }, (_, line) => ({
        line: line * 3 + 1,
        text: words(random, 6),
      })),
    };
    const json = JSON.stringify(input);
    const fragments: string[] = [];
    for (let at = 0; at < json.length; ) {
      const length = 3 + Math.floor(random() * 8);
      fragments.push(json.slice(at, at + length));
      at += length;
    }
    tools.push({ name: t % 2 === 0 ? 'edit_file' : 'write_file', input, fragments });
  }
  return { deltas, tools };
}

/**
 * The plan as a reply `@yourtool/wire-formats` renders: one text block and its tool calls (ids
 * from `toolId`), with the splitter that cuts them where the plan does.
 */
export function replyOf(
  p: Plan,
  toolId: (t: number) => string,
): { reply: MessageReply; split: Splitter } {
  const text = p.deltas.join('');
  // the plan decides where text and arguments are cut, not an even split
  const pieces = new Map<string, readonly string[]>([
    [text, p.deltas],
    ...p.tools.map((tool): [string, readonly string[]] => [
      tool.fragments.join(''),
      tool.fragments,
    ]),
  ]);
  const blocks: BlockPart[] = [
    { kind: 'text', text, chunks: p.deltas.length },
    ...p.tools.map(
      (tool, t): BlockPart => ({
        kind: 'tool_call',
        name: tool.name,
        input: tool.input,
        id: toolId(t),
        chunks: tool.fragments.length,
      }),
    ),
  ];
  return {
    reply: {
      kind: 'message',
      blocks,
      usage: { input_tokens: 1200, output_tokens: 25_000 },
      stopReason: 'tool_use',
      chunkDelayMs: 0,
    },
    split: (piece) => pieces.get(piece) ?? [piece],
  };
}

/** What a client must see of `p`; `wholeTools`: tool calls come whole, one fragment each. */
export function expectedOf(p: Plan, wholeTools: boolean): ExpectedContent {
  return {
    text: p.deltas.join(''),
    textDeltas: p.deltas.length,
    toolFragments: wholeTools
      ? p.tools.length
      : p.tools.reduce((n, t) => n + t.fragments.length, 0),
    tools: p.tools.map((t) => ({ name: t.name, input: t.input })),
  };
}
