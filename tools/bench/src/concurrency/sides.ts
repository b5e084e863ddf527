/**
 * The two sides of a concurrency run, each turn by turn: ours (a `SessionManager` turn,
 * iterated from `send`) and the raw Anthropic SDK (`messages.create({ stream: true })`
 * iterated, the conversation kept by the caller). Both answer the same scripted server, call
 * the same tool, and wait at the same kind of barrier for every session's tool to finish.
 */
import { performance } from 'node:perf_hooks';
import type Anthropic from '@anthropic-ai/sdk';
import { defineTool, type SessionManager, type ToolHandler } from '@yourtool/session';
import { Barrier, type RunProbe, type StreamTracker } from './probe.js';
import { promptOf, type RequestKey, replyText, TOOL_NAME, TOOL_TURN } from './script.js';

/** Turns per session: a text turn, a second text turn, and the tool turn. */
export const TURNS = 3;
/** The model name the raw SDK sends (the wire name our registry maps to). */
export const WIRE_MODEL = 'claude-sonnet-4-6';
const TOOL_DESCRIPTION = 'Waits until every session has called it, then answers "done".';
const TOOL_SCHEMA = {
  type: 'object',
  properties: { session: { type: 'integer' } },
  required: ['session'],
} as const;

/** The barrier of the current run's tool turn; the scenario owns it and renews it per run. */
export interface BarrierHolder {
  barrier: Barrier;
}

/** The tool our sessions call: it returns once every session of the run has called it. */
export function waitForAllTool(holder: BarrierHolder): ToolHandler {
  return defineTool({
    name: TOOL_NAME,
    description: TOOL_DESCRIPTION,
    side_effects: 'read',
    input_schema: TOOL_SCHEMA,
    run: async () => {
      await holder.barrier.arrive();
      return 'done';
    },
  });
}

/** What every turn of a run shares: its side and repetition, its probe, the tool barrier. */
export interface TurnContext {
  base: { side: string; rep: number };
  probe: RunProbe;
  holder: BarrierHolder;
}

/** One turn of one session: resolves to whether it ended as scripted. */
export type TurnRunner = (session: number, turn: number) => Promise<boolean>;

/** What a run of one side amounts to. */
export interface SideOutcome {
  failed: number;
  /** The first error a failed turn threw, if any. */
  firstError: string | null;
}

/** Runs every session's turns: turn 1 of all at once, then turn 2, then the tool turn. */
export async function runPhases(
  sessions: number,
  probe: RunProbe,
  holder: BarrierHolder,
  turn: TurnRunner,
): Promise<SideOutcome> {
  let failed = 0;
  let firstError: string | null = null;
  for (let t = 1; t <= TURNS; t++) {
    if (t === TOOL_TURN) {
      holder.barrier = new Barrier(sessions);
      probe.toolTurn(true);
    }
    await probe.phase(t, sessions);
    const done = await Promise.all(
      Array.from({ length: sessions }, (_, s) =>
        turn(s, t).catch((error: unknown) => {
          firstError ??= error instanceof Error ? `${error.name}: ${error.message}` : String(error);
          return false;
        }),
      ),
    );
    if (t === TOOL_TURN) {
      probe.toolTurn(false);
      probe.toolsFinished(holder.barrier.openedAt);
    }
    failed += done.filter((ok) => !ok).length;
  }
  await probe.settled();
  return { failed, firstError };
}

/** Our side: one turn through the manager, a stream tracker per model call. */
export function oursTurn(
  manager: SessionManager,
  sessionIds: readonly string[],
  { base, probe, holder }: TurnContext,
): TurnRunner {
  return async (session, turn) => {
    const key = { ...base, session, turn };
    const startedAt = performance.now();
    let step = 0;
    let tracker: StreamTracker | undefined;
    let ended = false;
    for await (const event of manager.send(sessionIds[session] as string, promptOf(key))) {
      if (event.type === 'session.routed') {
        step++;
        tracker = probe.stream({ ...key, step }, step === 1 ? startedAt : holder.barrier.openedAt);
      } else if (event.type === 'text.delta') tracker?.delta();
      else if (event.type === 'session.turn_complete') {
        ended = event.result.end === 'end_turn' && !event.result.error;
      }
    }
    return ended && step === (turn === TOOL_TURN ? 2 : 1);
  };
}

type RawContent = Anthropic.ContentBlockParam[];

/** The same tool as the raw SDK's request declares it. */
const RAW_TOOL: Anthropic.Tool = {
  name: TOOL_NAME,
  description: TOOL_DESCRIPTION,
  input_schema: { ...TOOL_SCHEMA, required: [...TOOL_SCHEMA.required] },
};

/** One streamed call of the raw SDK: its text, its tool call if any, and its stop reason. */
async function rawCall(
  client: Anthropic,
  messages: Anthropic.MessageParam[],
  tracker: StreamTracker,
): Promise<{ content: RawContent; text: string; toolUseId: string | null; stop: string | null }> {
  const stream = await client.messages.create({
    model: WIRE_MODEL,
    max_tokens: 4096,
    messages,
    tools: [RAW_TOOL],
    stream: true,
  });
  let text = '';
  let tool: { id: string; name: string; json: string } | null = null;
  let stop: string | null = null;
  for await (const event of stream) {
    if (event.type === 'content_block_delta') {
      if (event.delta.type === 'text_delta') {
        text += event.delta.text;
        tracker.delta();
      } else if (event.delta.type === 'input_json_delta' && tool)
        tool.json += event.delta.partial_json;
    } else if (event.type === 'content_block_start' && event.content_block.type === 'tool_use') {
      tool = { id: event.content_block.id, name: event.content_block.name, json: '' };
    } else if (event.type === 'message_delta') stop = event.delta.stop_reason;
  }
  const content: RawContent = [{ type: 'text', text }];
  if (tool) {
    content.push({
      type: 'tool_use',
      id: tool.id,
      name: tool.name,
      input: JSON.parse(tool.json || '{}'),
    });
  }
  return { content, text, toolUseId: tool?.id ?? null, stop };
}

/** The raw side: the caller keeps each conversation and runs the tool loop itself. */
export function rawTurn(
  client: Anthropic,
  conversations: Anthropic.MessageParam[][],
  { base, probe, holder }: TurnContext,
): TurnRunner {
  return async (session, turn) => {
    const messages = conversations[session] as Anthropic.MessageParam[];
    const key = { ...base, session, turn };
    messages.push({ role: 'user', content: promptOf(key) });
    let startedAt = performance.now();
    for (let step = 1; ; step++) {
      const stepKey: RequestKey = { ...key, step };
      const reply = await rawCall(client, messages, probe.stream(stepKey, startedAt));
      if (reply.text !== replyText(stepKey)) return false;
      messages.push({ role: 'assistant', content: reply.content });
      if (reply.stop !== 'tool_use' || !reply.toolUseId) {
        return reply.stop === 'end_turn' && step === (turn === TOOL_TURN ? 2 : 1);
      }
      await holder.barrier.arrive();
      startedAt = holder.barrier.openedAt;
      messages.push({
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: reply.toolUseId, content: 'done' }],
      });
    }
  };
}
