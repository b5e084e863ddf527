import type { AdapterCapabilities } from '@yourtool/core';
import { findModelPrice, type PriceTable } from '@yourtool/pricing';
import type { RegisteredModel } from '@yourtool/router';
import type { Runtime } from '@yourtool/runtime';
import { type ModelOptions, openCliRuntime } from '../config.js';
import type { CommandContext } from '../context.js';
import { table } from '../format.js';
import { withProgress } from '../progress.js';

/** One model as `yourtool models` reports it. */
export interface ModelReport {
  id: string;
  aliases: string[];
  tier: string | null;
  /** `available`, `not_configured`, or the availability state that holds it back. */
  availability: string;
  /** Why it cannot take calls now, when it cannot. */
  reason: string | null;
  /** Capabilities, `null` when they are not known (not configured, detection failed). */
  capabilities: AdapterCapabilities | null;
  /** USD per million tokens from the price table, `null` for a model it does not price. */
  price: {
    input_per_mtok_usd: string;
    output_per_mtok_usd: string;
    cached_read_per_mtok_usd: string | null;
    price_key: string;
    pricing_version: string;
  } | null;
}

const CAPABILITY_NAMES: Array<[keyof AdapterCapabilities, string]> = [
  ['supports_tools', 'tools'],
  ['supports_images', 'images'],
  ['supports_thinking', 'thinking'],
  ['supports_structured_output', 'structured'],
  ['supports_prompt_caching', 'caching'],
  ['supports_streaming', 'streaming'],
];

function priceOf(pricing: PriceTable, id: string): ModelReport['price'] {
  const match = findModelPrice(pricing, id);
  if (!match) return null;
  return {
    input_per_mtok_usd: match.price.input_per_mtok_usd,
    output_per_mtok_usd: match.price.output_per_mtok_usd,
    cached_read_per_mtok_usd: match.price.cached_read_per_mtok_usd ?? null,
    price_key: match.key,
    pricing_version: pricing.pricing_version,
  };
}

function reportOf(
  runtime: Runtime,
  model: RegisteredModel,
  detectionFailures: ReadonlyMap<string, string>,
): ModelReport {
  const base = {
    id: model.id,
    aliases: model.aliases,
    tier: model.tier,
    price: priceOf(runtime.pricing, model.id),
  };
  if (model.status === 'not_configured') {
    const reason = model.not_configured_reason;
    return { ...base, availability: 'not_configured', reason, capabilities: null };
  }
  const verdict = runtime.availability.check(model.id);
  const failure = detectionFailures.get(model.id);
  let capabilities: AdapterCapabilities | null = null;
  if (failure === undefined) {
    try {
      capabilities = runtime.registry.capabilitiesFor(model.id);
    } catch {
      capabilities = null;
    }
  }
  return {
    ...base,
    availability: verdict.ok ? 'available' : verdict.state,
    reason: verdict.reason ?? (failure === undefined ? null : `capabilities unknown: ${failure}`),
    capabilities,
  };
}

/**
 * The registry's models with their availability (or why not), capabilities (detected first
 * where an adapter detects them, e.g. Ollama's `/api/show`, bounded by `detectTimeoutMs`) and
 * prices from the price table.
 */
export async function modelReports(
  runtime: Runtime,
  context: CommandContext,
  detectTimeoutMs = 10_000,
): Promise<ModelReport[]> {
  const report = await withProgress(context.io.stderr, 'detecting model capabilities', () =>
    runtime.router.prepare({ signal: AbortSignal.timeout(detectTimeoutMs) }),
  );
  const failures = new Map(report.failed.map((f) => [f.model, f.error.message]));
  return runtime.registry.models().map((model) => reportOf(runtime, model, failures));
}

function row(model: ModelReport): string[] {
  const caps = model.capabilities;
  return [
    model.id,
    model.aliases.join(',') || '-',
    model.availability,
    caps ? String(caps.max_context_tokens) : '?',
    caps ? String(caps.max_output_tokens) : '?',
    model.price ? model.price.input_per_mtok_usd : '-',
    model.price ? model.price.output_per_mtok_usd : '-',
    caps
      ? CAPABILITY_NAMES.filter(([key]) => caps[key])
          .map(([, name]) => name)
          .join(',')
      : '?',
  ];
}

/** `yourtool models`: the registry of models.yaml, with capabilities, prices and availability. */
export async function listModels(
  context: CommandContext,
  options: ModelOptions & { json?: boolean },
): Promise<void> {
  const runtime = await openCliRuntime(options, context);
  try {
    const models = await modelReports(runtime, context);
    const { stdout } = context.io;
    if (options.json) {
      stdout.write(`${JSON.stringify(models, null, 2)}\n`);
      return;
    }
    const header = [
      'MODEL',
      'ALIASES',
      'AVAILABILITY',
      'CONTEXT',
      'MAX OUT',
      'IN $/MTOK',
      'OUT $/MTOK',
      'CAPABILITIES',
    ];
    stdout.write(table(header, models.map(row)));
    const notes = models.flatMap((m) => [
      ...(m.reason ? [`${m.id}: ${m.reason}`] : []),
      ...(m.price === null
        ? [`${m.id}: no price in table ${runtime.pricing.pricing_version} (costs show as unpriced)`]
        : []),
    ]);
    if (notes.length > 0) stdout.write(`\n${notes.join('\n')}\n`);
    stdout.write(`\nprices: table ${runtime.pricing.pricing_version}, USD per million tokens\n`);
  } finally {
    await runtime.close();
  }
}
