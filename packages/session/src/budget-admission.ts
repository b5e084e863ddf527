import {
  type BudgetAdmission,
  type BudgetEventScope,
  BudgetExceededError,
  type BudgetState,
  type Message,
  microsToUsd,
  nowTimestamp,
  parseModelId,
  UnpricedModelError,
  usdToMicros,
} from '@yourtool/core';
import { estimateWorstCaseMicros } from './budget-estimate.js';
import type { ModelCall } from './turn-scope.js';

export type { SessionBudgetOptions } from './budget-options.js';

const DEFAULT_TTL_MS = 10 * 60_000;

/** The scopes one call falls under, from the session's owner fields and the chosen model. */
export function callScopes(call: ModelCall): string[] {
  const { session } = call.turn.inputs;
  const model = call.decision.model;
  return [
    'global',
    `session:${session.id}`,
    ...(session.user ? [`user:${session.user}`] : []),
    ...(session.tenant ? [`tenant:${session.tenant}`] : []),
    ...(session.tags ?? []).map((tag) => `tag:${tag}`),
    `provider:${parseModelId(model).provider}`,
    `model:${model}`,
  ];
}

/**
 * Reserves the call's worst case against every budget covering it before it is sent, or
 * throws `BudgetExceededError` / `UnpricedModelError` (a `budget.refused` event first).
 */
export async function admitCall(call: ModelCall, requestId: string): Promise<void> {
  const { settings } = call.turn.manager;
  const budgets = settings.budgets;
  if (!budgets) return;
  const { decision } = call;
  const estimate = estimateWorstCaseMicros(
    {
      model: decision.model,
      inputTokens: decision.estimated_input_tokens,
      maxOutputTokens: settings.maxOutputTokens,
      thinkingTokens: call.turn.inputs.options.thinking ? (budgets.thinkingTokens ?? 0) : 0,
      cacheWrite: settings.costOptions?.cacheWriteTtl ?? null,
    },
    settings.pricing,
  );
  const base = {
    request_id: requestId,
    session_id: call.turn.inputs.session.id,
    model: decision.model,
  };
  try {
    const request = {
      request_id: requestId,
      scopes: callScopes(call),
      amount_micros: estimate ?? 0n,
      ttl_ms: budgets.reservationTtlMs ?? DEFAULT_TTL_MS,
    };
    const admission = await budgets.ledger.reserve(request).catch(async (error: unknown) => {
      // a refusal first frees what crashed processes left reserved, then asks once more
      if (!(error instanceof BudgetExceededError)) throw error;
      if ((await budgets.ledger.releaseExpired()) === 0) throw error;
      return budgets.ledger.reserve(request);
    });
    const covering = admission.reserved[0];
    if (estimate === null && covering && !budgets.allowUnpriced) {
      await budgets.ledger.settle(requestId, 0n);
      throw new UnpricedModelError(decision.model, covering.scope);
    }
    reportAdmission(call, { ...base, estimate }, admission);
  } catch (error) {
    if (error instanceof BudgetExceededError || error instanceof UnpricedModelError) {
      call.turn.telemetry?.budget('refused', {
        'yourtool.budget.request_id': requestId,
        'yourtool.budget.scope': error.scope,
        'yourtool.budget.reason': error instanceof BudgetExceededError ? 'exceeded' : 'unpriced',
      });
      settings.bus?.emit({
        type: 'budget.refused',
        ...base,
        scope: error.scope,
        reason: error instanceof BudgetExceededError ? 'exceeded' : 'unpriced',
        message: error.message,
        timestamp: nowTimestamp(),
      });
    }
    throw error;
  }
}

/**
 * Settles the call's reservation with its exact cost (the stored reply's `cost_usd`; zero when
 * nothing was stored or it has no price). Idempotent by request id.
 */
export async function settleCall(
  call: ModelCall,
  requestId: string,
  message: Message | null,
): Promise<void> {
  const { settings } = call.turn.manager;
  const budgets = settings.budgets;
  if (!budgets) return;
  const cost = message?.metadata.usage?.cost_usd ?? null;
  const actual = cost === null ? 0n : usdToMicros(cost);
  const settled = await budgets.ledger.settle(requestId, actual);
  if (!settled) return;
  call.turn.telemetry?.budget('settled', {
    'yourtool.budget.request_id': requestId,
    'yourtool.budget.actual_usd': microsToUsd(actual),
  });
  settings.bus?.emit({
    type: 'budget.settled',
    request_id: requestId,
    session_id: call.turn.inputs.session.id,
    model: call.decision.model,
    actual_usd: microsToUsd(actual),
    budgets: settled.settled.map(eventScope),
    timestamp: nowTimestamp(),
  });
}

/** Reports an admitted call: `budget.reserved`, and `budget.soft_limit_crossed` per crossing. */
function reportAdmission(
  call: ModelCall,
  base: { request_id: string; session_id: string; model: string; estimate: bigint | null },
  admission: BudgetAdmission,
): void {
  const { settings } = call.turn.manager;
  const { estimate, ...ids } = base;
  const requestId = ids.request_id;
  call.turn.telemetry?.budget('reserved', {
    'yourtool.budget.request_id': requestId,
    'yourtool.budget.amount_usd': microsToUsd(estimate ?? 0n),
    'yourtool.budget.scopes': admission.reserved.map((b) => b.scope).join(','),
  });
  settings.bus?.emit({
    type: 'budget.reserved',
    ...ids,
    amount_usd: microsToUsd(estimate ?? 0n),
    budgets: admission.reserved.map(eventScope),
    timestamp: nowTimestamp(),
  });
  for (const crossed of admission.soft_limit_crossed) {
    call.turn.telemetry?.budget('soft_limit_crossed', {
      'yourtool.budget.request_id': requestId,
      'yourtool.budget.scope': crossed.scope,
      'yourtool.budget.soft_limit_usd': microsToUsd(crossed.soft_limit_micros ?? 0n),
    });
    settings.bus?.emit({
      type: 'budget.soft_limit_crossed',
      request_id: requestId,
      session_id: ids.session_id,
      scope: crossed.scope,
      soft_limit_usd: microsToUsd(crossed.soft_limit_micros ?? 0n),
      budget: eventScope(crossed),
      timestamp: nowTimestamp(),
    });
  }
}

function eventScope(state: BudgetState): BudgetEventScope {
  return {
    scope: state.scope,
    window_start_ms: state.window_start_ms,
    limit_usd: microsToUsd(state.limit_micros),
    spent_usd: microsToUsd(state.spent_micros),
    reserved_usd: microsToUsd(state.reserved_micros),
  };
}
