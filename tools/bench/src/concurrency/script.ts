/**
 * What the paced server of the `concurrency/*` scenarios answers, as a pure function of the
 * request, so the client can check every stored reply against it: each request carries a key
 * (`[bench side.rep.session.turn]` in its user text) and the reply's text is built from it.
 */
import { anthropicFormat, type MessageReply } from '@yourtool/wire-formats';

/** Text deltas of every streamed reply. */
export const DELTAS = 64;
/** The turn number of the cancel wave's turns, whose replies are long enough to be cut. */
export const CANCEL_TURN = 9;
/** Text deltas of a cancel-wave reply (10 s at the server's pace: cancelled long before). */
export const CANCEL_DELTAS = 512;
/** The server's pause before each text delta, in ms. */
export const DELTA_PACE_MS = 20;
/** The tool every session calls in its third turn. */
export const TOOL_NAME = 'wait_for_all';
/** The turn whose first call asks for the tool. */
export const TOOL_TURN = 3;

/** Where a request belongs: side, repetition, session, turn (1-based) and step (1-based). */
export interface RequestKey {
  side: string;
  rep: number;
  session: number;
  turn: number;
  step: number;
}

/** The marker a user prompt carries so the server knows which script to answer with. */
export function promptOf(key: Omit<RequestKey, 'step'>): string {
  return `[bench ${key.side}.${key.rep}.${key.session}.${key.turn}] Tell me something.`;
}

/** The key as one string (how the server reports its pacing per request). */
export function keyString(key: RequestKey): string {
  return `${key.side}.${key.rep}.${key.session}.${key.turn}.${key.step}`;
}

const MARKER = /\[bench ([a-z]+)\.(\d+)\.(\d+)\.(\d+)\]/;

type WireMessage = { role?: unknown; content?: unknown };

/**
 * The key of a Messages API request body: the marker of its last user text, step 2 when the
 * last message answers a tool call. `null` when no marker is found.
 */
export function keyOfBody(body: { messages?: unknown }): RequestKey | null {
  const messages = Array.isArray(body.messages) ? (body.messages as WireMessage[]) : [];
  const last = messages.at(-1);
  const blocks = (m: WireMessage | undefined) =>
    typeof m?.content === 'string'
      ? [{ type: 'text', text: m.content }]
      : Array.isArray(m?.content)
        ? (m.content as Array<{ type?: unknown; text?: unknown }>)
        : [];
  const step = blocks(last).some((b) => b.type === 'tool_result') ? 2 : 1;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.role !== 'user') continue;
    for (const block of blocks(messages[i])) {
      const found = typeof block.text === 'string' ? MARKER.exec(block.text) : null;
      if (found) {
        const [, side, rep, session, turn] = found;
        return {
          side: side as string,
          rep: +(rep as string),
          session: +(session as string),
          turn: +(turn as string),
          step,
        };
      }
    }
  }
  return null;
}

/** A small string hash (FNV-1a), so each key's text differs. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** How many text deltas a request's reply streams. */
export function deltasOf(key: RequestKey): number {
  return key.turn === CANCEL_TURN ? CANCEL_DELTAS : DELTAS;
}

/** The reply text of a request: one piece of 8 characters per delta. */
export function replyText(key: RequestKey): string {
  const tag = (hash(keyString(key)) % 36 ** 4).toString(36).padStart(4, '0');
  let text = '';
  for (let i = 0; i < deltasOf(key); i++) text += `${tag}${String(i).padStart(3, '0')} `;
  return text;
}

/** Whether the request's reply asks for the tool (the first step of the tool turn). */
export function callsTool(key: RequestKey): boolean {
  return key.turn === TOOL_TURN && key.step === 1;
}

/** The tool use id of a session's tool call (unique per side, repetition and session). */
export function toolUseIdOf(key: RequestKey): string {
  return `toolu_bench_${key.side}_${key.rep}_${key.session}`;
}

/** The scripted reply of a request. */
export function replyOf(key: RequestKey): MessageReply {
  const text = { kind: 'text' as const, text: replyText(key), chunks: deltasOf(key) };
  return {
    kind: 'message',
    blocks: callsTool(key)
      ? [
          text,
          {
            kind: 'tool_call',
            name: TOOL_NAME,
            input: { session: key.session },
            id: toolUseIdOf(key),
            chunks: 1,
          },
        ]
      : [text],
    usage: { input_tokens: 200, output_tokens: deltasOf(key) },
    stopReason: callsTool(key) ? 'tool_use' : 'end_turn',
    chunkDelayMs: 0,
  };
}

const renderer = anthropicFormat({ withoutNewerFields: true });

/** The SSE chunks of a request's reply, as the Messages API streams it. */
export function chunksOf(key: RequestKey, seq: number, model: string): readonly string[] {
  return renderer.stream({ reply: replyOf(key), model, seq, body: {} }).chunks as readonly string[];
}
