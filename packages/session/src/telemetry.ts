import {
  type AdapterError,
  type ContentBlock,
  isCancelledError,
  type Message,
  type ToolIdMap,
  type ToolUseBlock,
  type Usage,
} from '@yourtool/core';
import {
  GENAI_ATTRIBUTES as ATTR,
  type CallTelemetryOptions,
  errorTypeOf,
  genAiProviderName,
  getTelemetry,
  inputMessagesJson,
  type LibraryTelemetry,
  outputMessagesJson,
  providerModelName,
  type TelemetrySpan,
  toolCallValueJson,
  toolResultJson,
  YOURTOOL_ATTRIBUTES as YOURTOOL,
} from '@yourtool/core/adapter';
import { buildUsage } from '@yourtool/pricing';
import type { RouteDecision } from '@yourtool/router';
import type { CompactionReason, CompactionRecord } from './compaction.js';
import { compactionOf } from './compaction.js';
import type { SessionTelemetryOptions, ToolOutcome, TurnModel } from './telemetry-options.js';
import { costAttributes, inputTokens, sum } from './telemetry-usage.js';
import type { RegisteredTool } from './tools.js';
import type { ManagerSettings } from './validate-options.js';

/** Instrumentation scope of the session's spans. */
export const SESSION_SCOPE = '@yourtool/session';

export type { SessionTelemetryOptions, ToolOutcome, TurnModel };

/** The budget events a turn's span records. */
export type BudgetTelemetryKind = 'reserved' | 'settled' | 'refused' | 'soft_limit_crossed';

/** Outcomes that are someone's decision rather than a failure: the span status stays unset. */
const DECIDED: ReadonlySet<ToolOutcome> = new Set(['refused', 'not_run', 'cancelled']);

/** What a turn's span starts from: the manager's settings, the session, the input, the model. */
interface TurnOpening {
  settings: ManagerSettings;
  sessionId: string;
  input: string | ContentBlock[];
  model: TurnModel | null;
}

/** What a turn's telemetry reads of it when the turn ends. */
export interface TurnSummary {
  steps: number;
  end: string;
  stored: readonly Message[];
}

/**
 * The OpenTelemetry spans of one turn: `invoke_agent` (kind INTERNAL) over the whole turn, the
 * parent of its model calls' `chat {model}` spans (opened by core's call runner, a fallback a
 * new one carrying the failed attempt's error class), of one `execute_tool {name}` span per
 * tool run and of one `compact_history` span per compaction. Exists only when a tracer
 * provider is registered; nothing is built otherwise.
 */
export class TurnTelemetry {
  readonly #lib: LibraryTelemetry;
  readonly #span: TelemetrySpan;
  readonly #settings: ManagerSettings;
  readonly #sessionId: string;
  readonly #captureContent: boolean;
  #routed = false;
  #fallbacks = 0;
  /** The model of the turn's latest call (its tool uses' provider ids are under its key). */
  #callModel: string | null = null;

  private constructor(
    lib: LibraryTelemetry,
    span: TelemetrySpan,
    settings: ManagerSettings,
    sessionId: string,
  ) {
    this.#lib = lib;
    this.#span = span;
    this.#settings = settings;
    this.#sessionId = sessionId;
    this.#captureContent = lib.captureContent(settings.telemetry?.captureContent);
  }

  /**
   * Opens the turn's span under the active context, or resolves null when `@opentelemetry/api`
   * is absent or no tracer provider is registered.
   */
  static open(
    settings: ManagerSettings,
    sessionId: string,
    input: string | ContentBlock[],
    knownModel?: () => Promise<TurnModel | null>,
  ): TurnTelemetry | null | Promise<TurnTelemetry | null> {
    const lib = getTelemetry();
    if (lib === null) return null;
    const start = async (loaded: LibraryTelemetry) => {
      if (!loaded.tracing(SESSION_SCOPE, settings.telemetry?.tracerProvider)) return null;
      const model = knownModel ? await knownModel().catch(() => null) : null;
      return TurnTelemetry.#start(loaded, { settings, sessionId, input, model });
    };
    if (lib instanceof Promise) return lib.then((loaded) => loaded && start(loaded));
    // nothing registered: answered at once, without a promise or a read of the session
    if (!lib.tracing(SESSION_SCOPE, settings.telemetry?.tracerProvider)) return null;
    if (!knownModel) return TurnTelemetry.#start(lib, { settings, sessionId, input, model: null });
    return start(lib);
  }

  /** Starts the turn's span, carrying the model the turn is known to use when there is one. */
  static #start(lib: LibraryTelemetry, turn: TurnOpening): TurnTelemetry | null {
    const { settings, sessionId, input, model } = turn;
    const agent = settings.telemetry?.agentName;
    const span = lib.startSpan(SESSION_SCOPE, agent ? `invoke_agent ${agent}` : 'invoke_agent', {
      kind: 'internal',
      tracerProvider: settings.telemetry?.tracerProvider,
      attributes: () => ({
        [ATTR.operationName]: 'invoke_agent',
        [ATTR.conversationId]: sessionId,
        [ATTR.agentName]: agent,
        ...(model
          ? {
              [ATTR.providerName]: genAiProviderName(
                model.adapter ?? model.model.split(':')[0] ?? model.model,
              ),
              [ATTR.requestModel]: model.wireName ?? providerModelName(model.model),
              [YOURTOOL.modelId]: model.model,
            }
          : {}),
      }),
    });
    if (!span) return null;
    const telemetry = new TurnTelemetry(lib, span, settings, sessionId);
    if (span.recording && telemetry.#captureContent) {
      const content: ContentBlock[] =
        typeof input === 'string' ? [{ type: 'text', text: input }] : input;
      span.setAttributes({
        [ATTR.inputMessages]: inputMessagesJson([{ role: 'user', content } as Message]),
      });
    }
    return telemetry;
  }

  /** A model was routed for a call: the first decision names the turn's provider and routing. */
  routed(decision: RouteDecision): void {
    this.#callModel = decision.model;
    if (this.#routed || !this.#span.recording) return;
    this.#routed = true;
    this.#span.setAttributes({
      [ATTR.providerName]: genAiProviderName(decision.adapter.name),
      [ATTR.requestModel]: providerModelName(decision.model),
      [YOURTOOL.modelId]: decision.model,
      [YOURTOOL.routingMode]: decision.record.mode,
      [YOURTOOL.routingRule]: decision.record.rule_name ?? undefined,
    });
  }

  /** A failed call goes on with a fallback: an event on the turn span. */
  fallback(from: RouteDecision, to: RouteDecision, error: AdapterError): void {
    this.#fallbacks++;
    this.#callModel = to.model;
    this.#span.addEvent('yourtool.fallback', {
      [YOURTOOL.fallbackFromModel]: from.model,
      'yourtool.fallback.to_model': to.model,
      [ATTR.errorType]: error.error_class,
    });
  }

  /**
   * A budget event of one of the turn's calls (decision 0181): a `yourtool.budget.<kind>` event
   * on the turn span (the call's own span opens only once the call is admitted).
   */
  budget(kind: BudgetTelemetryKind, attributes: Record<string, string | number>): void {
    this.#span.addEvent(`yourtool.budget.${kind}`, attributes);
  }

  /**
   * The telemetry options of a model call of this turn: its span's parent, the step, the routing
   * (and, for a fallback, the model that failed and its error class), content capture, and the
   * call's exact cost once it ended.
   */
  callOptions(decision: RouteDecision, step: number): CallTelemetryOptions {
    const failed = decision.record.fallback_from?.at(-1);
    return {
      ...this.#providers(),
      parent: this.#span.context,
      captureContent: this.#captureContent,
      attributes: {
        [YOURTOOL.step]: step,
        [YOURTOOL.routingMode]: decision.record.mode,
        [YOURTOOL.routingRule]: decision.record.rule_name ?? undefined,
        [YOURTOOL.fallbackFromModel]: failed?.model,
        [YOURTOOL.fallbackErrorType]: failed?.error_class,
      },
      onEnd: (end) => {
        if (!end.usage) return undefined;
        const usage = buildUsage(end.usage, {
          model: decision.model,
          servedModel: end.served_model,
          table: this.#settings.pricing,
          latencyMs: end.latency_ms,
          ...this.#settings.costOptions,
        });
        return costAttributes([usage]);
      },
    };
  }

  /** The options of a summary call a compaction hook makes, under the compaction's span. */
  summaryCallOptions(span: TelemetrySpan | null): CallTelemetryOptions {
    return {
      ...this.#providers(),
      parent: (span ?? this.#span).context,
      captureContent: this.#captureContent,
    };
  }

  /** The tracer and meter providers the manager was given, for a call's options. */
  #providers(): Pick<CallTelemetryOptions, 'tracerProvider' | 'meterProvider'> {
    const options = this.#settings.telemetry;
    return {
      ...(options?.tracerProvider ? { tracerProvider: options.tracerProvider } : {}),
      ...(options?.meterProvider ? { meterProvider: options.meterProvider } : {}),
    };
  }

  /**
   * Opens the `execute_tool {name}` span of a tool use, under the turn, with the provider's own
   * id of the call (from the session's tool id map) beside the canonical one.
   */
  startTool(
    use: ToolUseBlock,
    tool: RegisteredTool | undefined,
    toolIdMap?: ToolIdMap,
  ): TelemetrySpan | null {
    const span = this.#lib.startSpan(SESSION_SCOPE, `execute_tool ${use.name}`, {
      kind: 'internal',
      parent: this.#span.context,
      tracerProvider: this.#settings.telemetry?.tracerProvider,
      attributes: () => ({
        [ATTR.operationName]: 'execute_tool',
        [ATTR.toolName]: use.name,
        [ATTR.toolCallId]: use.id,
        [ATTR.toolType]: 'function',
      }),
    });
    if (span?.recording) {
      span.setAttributes({
        [ATTR.conversationId]: this.#sessionId,
        [ATTR.toolDescription]: tool?.definition.description,
        'yourtool.tool.side_effects': tool?.definition.side_effects,
        [YOURTOOL.toolProviderCallId]: this.#providerCallId(use, toolIdMap),
        [ATTR.toolCallArguments]: this.#captureContent ? toolCallValueJson(use.input) : undefined,
      });
    }
    return span;
  }

  /** The id the model's provider gave a tool use, when the map links one to it. */
  #providerCallId(use: ToolUseBlock, toolIdMap: ToolIdMap | undefined): string | undefined {
    const model = this.#callModel;
    if (!toolIdMap || !model) return undefined;
    const provider = model.slice(0, Math.max(0, model.indexOf(':')));
    return provider ? toolIdMap.getProviderId(provider, use.id) : undefined;
  }

  /** Ends a tool's span with how the use ended (and its result, when content is captured). */
  endTool(span: TelemetrySpan, outcome: ToolOutcome, result: Message): void {
    if (span.recording) {
      if (this.#captureContent) {
        const block = result.content[0];
        if (block?.type === 'tool_result') {
          span.setAttributes({ [ATTR.toolCallResult]: toolResultJson(block.content) });
        }
      }
      if (outcome !== 'ok') {
        if (DECIDED.has(outcome)) span.setAttributes({ [ATTR.errorType]: outcome });
        else span.fail(outcome);
      }
    }
    span.end();
  }

  /** Opens the span of a compaction, under the turn. */
  startCompaction(
    reason: CompactionReason,
    target: { model: string; context_window: number },
  ): TelemetrySpan | null {
    const span = this.#lib.startSpan(SESSION_SCOPE, 'compact_history', {
      kind: 'internal',
      parent: this.#span.context,
      tracerProvider: this.#settings.telemetry?.tracerProvider,
      attributes: () => ({
        [ATTR.conversationId]: this.#sessionId,
        'yourtool.compaction.reason': reason,
        'yourtool.compaction.target_model': target.model,
        'yourtool.compaction.context_window': target.context_window,
      }),
    });
    return span;
  }

  /** Ends a compaction's span: what it did (null: the hook could not help), or its failure. */
  endCompaction(
    span: TelemetrySpan,
    done: { record: CompactionRecord; usage: Usage | null } | null,
    error?: unknown,
  ): void {
    if (span.recording) {
      if (error !== undefined) {
        if (isCancelledError(error)) span.setAttributes({ [ATTR.errorType]: 'cancelled' });
        else span.fail(errorTypeOf(error));
      } else if (!done) {
        span.setAttributes({ 'yourtool.compaction.applied': false });
      } else {
        const { record, usage } = done;
        span.setAttributes({
          'yourtool.compaction.applied': true,
          'yourtool.compaction.strategy': record.strategy,
          'yourtool.compaction.replaced_messages': record.replaced_messages,
          'yourtool.compaction.tokens_before': record.tokens_before,
          'yourtool.compaction.tokens_after': record.tokens_after,
          ...(usage ? costAttributes([usage]) : {}),
        });
      }
    }
    span.end();
  }

  /**
   * Ends the turn's span: steps, how the turn ended, its tokens and exact cost (every call it
   * made, compaction summaries included), and `error.type` when it failed. A turn that did not
   * run to its end (its consumer stopped, or it was cancelled) is `cancelled`.
   */
  end(turn: TurnSummary | null, failure: unknown, completed: boolean): void {
    const span = this.#span;
    try {
      if (!span.recording) return;
      const end = failure !== undefined || completed ? (turn?.end ?? 'error') : 'cancelled';
      const usages = (turn?.stored ?? []).flatMap((m) =>
        (m.role === 'assistant' || compactionOf(m)) && m.metadata.usage ? [m.metadata.usage] : [],
      );
      span.setAttributes({
        'yourtool.turn.steps': turn?.steps,
        'yourtool.turn.end': end,
        'yourtool.turn.fallbacks': this.#fallbacks || undefined,
        ...(usages.length > 0
          ? {
              [ATTR.usageInputTokens]: sum(usages, (u) => inputTokens(u)),
              [ATTR.usageOutputTokens]: sum(usages, (u) => u.output_tokens),
              ...costAttributes(usages),
            }
          : {}),
      });
      if (this.#captureContent) {
        const reply = turn?.stored.findLast((m) => m.role === 'assistant');
        if (reply) {
          span.setAttributes({
            [ATTR.outputMessages]: outputMessagesJson(
              reply.content,
              reply.metadata.stop_reason ?? 'end_turn',
            ),
          });
        }
      }
      const failed = failure !== undefined && failure !== null;
      if (failed && !isCancelledError(failure)) span.fail(errorTypeOf(failure));
      else if (failed || end === 'cancelled') span.setAttributes({ [ATTR.errorType]: 'cancelled' });
      else if (end === 'error') span.fail('error');
    } catch {
      // telemetry never breaks a turn
    } finally {
      span.end();
    }
  }
}
