import {
  type ContentBlock,
  type Message,
  type MessageCompleteEvent,
  type MessageStatus,
  newToolUseId,
  type ParsedOutputText,
  type StructuredOutputPlan,
  type TokenUsage,
} from '@yourtool/core';
import { buildUsage } from '@yourtool/pricing';
import type { CallReport } from './call-report.js';
import type { PartialRow } from './partial-row.js';
import { checkReply, type InvalidReplyError, invalidReplyError } from './reply-check.js';
import type { ObjectRead } from './turn-output.js';
import type { ModelCall } from './turn-scope.js';

/** The usage of a call that reported none (it failed or was cancelled before any). */
const ZERO_USAGE: TokenUsage = {
  input_tokens: 0,
  output_tokens: 0,
  cached_input_tokens: 0,
  cache_creation_input_tokens: 0,
};

/** What a call's stream left: its assistant row, when it started, its end, its failure. */
export interface StreamedReply {
  /** The assistant message's row, from the first event on; undefined before one. */
  row: PartialRow | undefined;
  /** When the first event arrived (epoch ms). */
  started: number;
  complete: MessageCompleteEvent | undefined;
  status: MessageStatus;
  /** How the call asks for the turn's object; null when the turn asks for none. */
  plan: StructuredOutputPlan | null;
  /** The object's JSON as the stream's parser read it whole; null if it did not. */
  parsed: ParsedOutputText | null;
}

/** A stored reply: the caller's copy of the message, and the error it ends the turn with. */
export interface StoredReply {
  message: Message;
  invalid: InvalidReplyError | null;
  /** The object read from a finished reply of a turn that asks for one; else null. */
  object: ObjectRead | null;
}

/**
 * Finishes the reply's row: the message with its final content, status, usage (priced by the
 * model that served it when the table knows it), stop reason and reply facts, checked once
 * ({@link checkReply}), then stored through the turn's log (over its `partial` row, when one
 * was written: `TurnLog.finishReply`).
 */
export async function storeReply(
  call: ModelCall,
  report: CallReport,
  streamed: StreamedReply & { row: PartialRow },
): Promise<StoredReply> {
  const { turn, decision } = call;
  const { settings } = turn.manager;
  const { complete, row } = streamed;
  const partial = row.message;
  const usage = buildUsage(complete?.usage ?? ZERO_USAGE, {
    model: decision.model,
    servedModel: complete?.served_model ?? null,
    table: settings.pricing,
    latencyMs: complete?.latency_ms ?? Date.now() - streamed.started,
    logger: settings.logger,
    ...settings.costOptions,
  });
  const status =
    turn.signal.aborted && streamed.status !== 'complete' ? 'cancelled' : streamed.status;
  // a finished reply of a turn asking for an object is read once, and its validity stored
  const { output } = turn.inputs;
  const answer = complete && {
    content: complete.final_content,
    stop_reason: complete.stop_reason,
    refusal: complete.refusal ?? null,
    request_id: report.request_id,
  };
  const object =
    answer && status === 'complete' && streamed.plan && output?.answers(answer, streamed.plan)
      ? output.read(answer, streamed.plan, streamed.parsed)
      : null;
  const reply: Message = {
    ...partial,
    content: freshToolIds(call, complete?.final_content ?? []),
    metadata: {
      ...partial.metadata,
      status,
      usage,
      stop_reason: complete?.stop_reason ?? (status === 'cancelled' ? 'cancelled' : 'error'),
      ...(complete?.served_model ? { served_model: complete.served_model } : {}),
      ...(complete?.refusal ? { refusal: complete.refusal } : {}),
      ...(complete?.provider_raw ? { provider_raw: complete.provider_raw } : {}),
      ...(object ? { structured_output: object.record } : {}),
    },
  };
  // every reply ends as a finished row: one that breaks an invariant is kept at `error`
  const checked = checkReply(reply);
  const invalid =
    checked.violations.length > 0
      ? invalidReplyError(checked.message, checked.violations, report, settings.logger)
      : null;
  // a `partial` row still being written is waited for: the finished reply replaces it
  const replaces = await row.settle();
  await turn.log.finishReply(checked.message, { valid: checked.valid, replaces });
  return { message: checked.message, invalid, object };
}

function addToolUseIds(ids: Set<string>, message: Message): void {
  for (const block of message.content) if (block.type === 'tool_use') ids.add(block.id);
}

/**
 * A provider that reuses a tool call id from an earlier reply (some OpenAI-compatible servers
 * number their calls `call_0`, `call_1`, ...) maps it onto a canonical id the history already
 * holds. Such a block gets a fresh canonical id, so every tool use stays unique.
 */
function freshToolIds(call: ModelCall, content: ContentBlock[]): ContentBlock[] {
  if (!content.some((block) => block.type === 'tool_use')) return content;
  const { history } = call.turn;
  // the ids of its sealed messages, collected once per history in the manager's memo (0148)
  const prefix = call.turn.manager.sealedToolUseIds.run(history, addToolUseIds);
  const seen = new Set(prefix.state);
  for (let i = prefix.end; i < history.length; i++) addToolUseIds(seen, history[i] as Message);
  const model = call.decision.model;
  return content.map((block) => {
    if (block.type !== 'tool_use' || !seen.has(block.id)) return block;
    const id = newToolUseId();
    call.turn.manager.settings.logger.warn(
      {
        event: 'provider_reused_tool_id',
        session_id: call.turn.inputs.session.id,
        model,
        previous_id: block.id,
        new_id: id,
      },
      `${model} reused a tool call id from an earlier reply; the call was given a new canonical id`,
    );
    return { ...block, id };
  });
}
