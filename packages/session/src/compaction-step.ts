import {
  createMessage,
  type FallbackAttempt,
  type Message,
  newRequestId,
  parseModelId,
  type RouteTraceEntry,
  type Usage,
} from '@yourtool/core';
import type { TelemetrySpan } from '@yourtool/core/adapter';
import { buildUsage, sumCosts } from '@yourtool/pricing';
import { boundedRouteInput, boundTargetOf, toolResultLimits } from './bound-targets.js';
import {
  type CompactionCall,
  CompactionError,
  type CompactionHook,
  type CompactionReason,
  type CompactionRecord,
  type CompactionRequest,
  type CompactionResult,
  compactionOf,
} from './compaction.js';
import { errorText } from './errors.js';
import type { SessionEvent } from './events.js';
import type { TurnTelemetry } from './telemetry.js';
import { boundToolResults } from './tool-result-bound.js';
import type { TurnLog } from './turn-log.js';
import { type RoutedStep, type RoutingTurn, turnStart } from './turn-state.js';

/**
 * What a compaction reads of the turn: what routing reads, the turn's signal, its log (which
 * stores the summary) and its telemetry (which spans the summary calls).
 */
export interface CompactingTurn extends RoutingTurn {
  readonly signal: AbortSignal;
  readonly log: TurnLog;
  readonly telemetry: TurnTelemetry | null;
}

/** A stored summary and the event that reports it. */
export interface Compacted {
  message: Message;
  event: SessionEvent;
}

/** The model calls a compaction hook made through `complete()`: their usages, priced. */
class SummaryCalls {
  readonly usages: Usage[] = [];
  /** The model of the last call, which the summary message names. */
  summarizer: string | null = null;
  readonly #state: CompactingTurn;
  readonly #span: TelemetrySpan | null;

  constructor(state: CompactingTurn, span: TelemetrySpan | null) {
    this.#state = state;
    this.#span = span;
  }

  /** Routes the call as an explicit choice, makes it, prices it; returns its text. */
  async complete(call: CompactionCall): Promise<string> {
    const { signal } = this.#state;
    const { session } = this.#state.inputs;
    const { router, pricing, costOptions, logger } = this.#state.manager.settings;
    const prompt = createMessage({
      session_id: session.id,
      role: 'user',
      content: [{ type: 'text', text: call.prompt }],
    });
    const decision = router.route({
      session_id: session.id,
      messages: [prompt],
      tools: [],
      system_prompt: call.system_prompt,
      max_output_tokens: call.max_output_tokens,
      override: call.model,
      sticky: null,
      workspace_path: session.workspace_path,
    });
    const response = await decision.adapter.complete(
      {
        request_id: newRequestId(),
        model: decision.model,
        messages: [prompt],
        system_prompt: call.system_prompt,
        max_output_tokens: call.max_output_tokens,
      },
      {
        signal,
        logger,
        // the summary call's span goes under the compaction's
        ...(this.#state.telemetry
          ? { telemetry: this.#state.telemetry.summaryCallOptions(this.#span) }
          : {}),
      },
    );
    this.summarizer = decision.model;
    this.usages.push(
      buildUsage(response.usage, {
        model: decision.model,
        table: pricing,
        latencyMs: response.latency_ms,
        logger,
        ...costOptions,
      }),
    );
    return response.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
  }
}

/**
 * What a compaction hook is asked to make room for `target`; `complete` makes the hook's model
 * calls. Estimates are of what `target` receives: tool results bounded as for its requests
 * (decision 0155).
 */
export function compactionRequest(
  state: CompactingTurn,
  reason: CompactionReason,
  target: CompactionRequest['target'],
  complete: CompactionRequest['complete'],
): CompactionRequest {
  const { router } = state.manager.settings;
  const toolResults = toolResultLimits(state.manager.settings);
  const adapter = router.registry.adapterFor(target.model);
  const bound = boundTargetOf(router, target.model);
  return {
    session: state.inputs.session,
    messages: [...state.history],
    turn_start: turnStart(state),
    reason,
    target,
    estimateTokens: (messages) =>
      adapter.estimateInputTokens(
        boundToolResults(messages, toolResults, bound, null),
        state.inputs.tools,
        state.inputs.systemPrompt,
      ),
    limitsOf: (model) => {
      const caps = router.registry.capabilitiesFor(router.registry.resolve(model));
      return { context_window: caps.max_context_tokens, max_output_tokens: caps.max_output_tokens };
    },
    complete,
    signal: state.signal,
  };
}

/** Runs the hook; a hook that throws is a {@link CompactionError} (unless the turn was cancelled). */
async function runHook(hook: CompactionHook, request: CompactionRequest) {
  try {
    return await hook(request);
  } catch (error) {
    if (error instanceof CompactionError || request.signal.aborted) throw error;
    throw new CompactionError(`the compaction hook failed: ${errorText(error)}`, {
      cause: error,
    });
  }
}

/**
 * Where the hook's cut falls in the history: a message before the turn's own, followed by a
 * user message, so that tool calls keep their results.
 * @throws CompactionError for a cut the session cannot apply.
 */
export function cutIndex(history: readonly Message[], result: CompactionResult, turnStart: number) {
  const at = history.findIndex((m) => m.id === result.through_message_id);
  if (at < 0 || at >= turnStart) {
    throw new CompactionError(
      `the compaction hook returned through_message_id "${result.through_message_id}", which is not a message before the current turn`,
    );
  }
  if (history[at + 1]?.role !== 'user') {
    throw new CompactionError(
      `the compaction hook cut after message ${result.through_message_id}, which is not followed by a user message: a cut must fall between turns so tool calls keep their results`,
    );
  }
  return at;
}

/**
 * Replaces older turns with a stored summary (docs/decisions/0101): the hook for `target` is
 * run and what it returns applied: the summary message is stored (with the usage and cost of
 * the calls the hook made) and the turn's history becomes the compacted conversation. Null
 * when there is no hook or it cannot help.
 * @throws CompactionError when the hook throws or returns a cut the session cannot apply.
 */
export async function compactHistory(
  state: CompactingTurn,
  reason: CompactionReason,
  target: CompactionRequest['target'],
): Promise<Compacted | null> {
  const hook = state.manager.settings.compaction;
  if (!hook) return null;
  const { telemetry } = state;
  const span = telemetry?.startCompaction(reason, target) ?? null;
  if (!telemetry || !span) return compact(state, hook, { reason, target, span: null });
  try {
    const done = await compact(state, hook, { reason, target, span });
    const record = done ? compactionOf(done.message) : null;
    telemetry.endCompaction(
      span,
      record ? { record, usage: done?.message.metadata.usage ?? null } : null,
    );
    return done;
  } catch (error) {
    telemetry.endCompaction(span, null, error);
    throw error;
  }
}

/** {@link compactHistory}'s work, the hook's summary calls under `span` when there is one. */
async function compact(
  state: CompactingTurn,
  hook: CompactionHook,
  how: {
    reason: CompactionReason;
    target: CompactionRequest['target'];
    span: TelemetrySpan | null;
  },
): Promise<Compacted | null> {
  const { reason, target, span } = how;
  const calls = new SummaryCalls(state, span);
  const request = compactionRequest(state, reason, target, (call) => calls.complete(call));
  const result = await runHook(hook, request);
  if (!result) return null;
  const { history } = state;
  const at = cutIndex(history, result, request.turn_start);
  const cutAt = history[at] as Message;
  const kept = history.slice(at + 1);
  const record: CompactionRecord = {
    through_message_id: compactionOf(cutAt)?.through_message_id ?? cutAt.id,
    strategy: result.strategy,
    replaced_messages: history.slice(0, at + 1).filter((m) => !compactionOf(m)).length,
    reason,
    target_model: target.model,
    tokens_before: request.estimateTokens(history),
    tokens_after: 0,
  };
  const usage = combineUsages(calls.usages);
  const summary = createMessage({
    session_id: state.inputs.session.id,
    role: 'system',
    content: [{ type: 'text', text: result.summary }],
    metadata: {
      status: 'complete',
      compaction: record,
      ...(calls.summarizer && usage
        ? { model: calls.summarizer, provider: parseModelId(calls.summarizer).provider, usage }
        : {}),
    },
  });
  record.tokens_after = request.estimateTokens([summary, ...kept]);
  const message = { ...summary, metadata: { ...summary.metadata, compaction: record } };
  await state.log.keepSummary(message);
  history.splice(0, history.length, message, ...kept);
  logCompaction(state, record);
  const cost_usd = usage ? usage.cost_usd : null;
  return { message, event: { type: 'session.compacted', message, compaction: record, cost_usd } };
}

function logCompaction(state: CompactingTurn, record: CompactionRecord): void {
  state.manager.settings.logger.info?.(
    {
      event: 'session_compacted',
      session_id: state.inputs.session.id,
      strategy: record.strategy,
      replaced_messages: record.replaced_messages,
      target_model: record.target_model,
      tokens_before: record.tokens_before,
      tokens_after: record.tokens_after,
    },
    `compacted ${record.replaced_messages} messages to fit ${record.target_model}`,
  );
}

/** What a provider's context overflow leads to: a compacted retry, and the summary's event. */
export interface OverflowRetry {
  retry: RoutedStep | null;
  compacted: SessionEvent | null;
}

/**
 * After a context overflow that no fallback takes: compacts (once per step) and routes the
 * compacted history again; the retry's record names the overflowed attempt in `fallback_from`.
 * A compacted history that finds no model leaves the overflow standing (logged).
 */
export async function retryAfterOverflow(
  state: CompactingTurn,
  routed: RoutedStep,
  failures: FallbackAttempt[],
  overflow: { message: string },
): Promise<OverflowRetry> {
  const { decision } = routed;
  const done = state.signal.aborted
    ? null
    : await compactHistory(state, 'context_overflow', {
        model: decision.model,
        context_window: decision.capabilities.max_context_tokens,
        estimated_input_tokens: decision.estimated_input_tokens,
        max_output_tokens: state.manager.settings.maxOutputTokens,
      });
  if (!done) return { retry: null, compacted: null };
  try {
    const input = boundedRouteInput(state, decision.model);
    const again = state.manager.settings.router.route(input);
    failures.push({
      model: decision.model,
      error_class: 'context_overflow',
      reason: overflow.message,
    });
    const record = { ...again.record, fallback_from: [...failures] };
    return { retry: { input, decision: { ...again, record } }, compacted: done.event };
  } catch (refused) {
    state.manager.settings.logger.warn(
      {
        event: 'no_route_after_compaction',
        session_id: state.inputs.session.id,
        reason: errorText(refused),
      },
      'the compacted history found no model; the context overflow stands',
    );
    return { retry: null, compacted: done.event };
  }
}

/**
 * The first candidate a routing error rejected for its context window alone (the router's
 * `RouteTraceEntry.context_limited`), as a compaction target; null for any other error.
 */
export function contextLimitedTarget(error: unknown): CompactionRequest['target'] | null {
  if (!(error instanceof Error) || !('trace' in error) || !Array.isArray(error.trace)) return null;
  for (const entry of error.trace as RouteTraceEntry[]) {
    if (entry.model && entry.context_limited)
      return { model: entry.model, ...entry.context_limited };
  }
  return null;
}

/** The usages of a compaction's calls as one (tokens and costs summed), or null for none. */
function combineUsages(usages: readonly Usage[]): Usage | null {
  const [first] = usages;
  if (!first) return null;
  if (usages.length === 1) return first;
  const costs = usages.map((u) => u.cost_usd);
  const sum = (pick: (u: Usage) => number) => usages.reduce((n, u) => n + pick(u), 0);
  return {
    input_tokens: sum((u) => u.input_tokens),
    output_tokens: sum((u) => u.output_tokens),
    cached_input_tokens: sum((u) => u.cached_input_tokens),
    cache_creation_input_tokens: sum((u) => u.cache_creation_input_tokens),
    cost_usd: costs.includes(null) ? null : sumCosts(costs as string[]),
    pricing_version: first.pricing_version,
    latency_ms: sum((u) => u.latency_ms),
  };
}
