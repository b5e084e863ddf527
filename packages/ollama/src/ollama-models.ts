import type { AdapterCapabilities, Message, ToolDefinition } from '@yourtool/core';
import type { AdapterContext, WireModels } from '@yourtool/core/adapter';
import { OLLAMA } from './codec/request.js';
import type { OllamaModelCatalog } from './detection.js';
import { normalizeOllamaModelName, ollamaCapabilities } from './models.js';
import type { OllamaDefaults } from './options.js';
import { estimateOllamaInputTokens, OLLAMA_TOKEN_ESTIMATE_FACTOR } from './tokens.js';

/** The model whose capabilities `adapter.capabilities` reports unless `options.default_model` says. */
export const DEFAULT_OLLAMA_MODEL = 'ollama:llama3.2';

/**
 * The Ollama adapter's models part: each local model's capabilities as `/api/show` reported
 * them (conservative defaults until read), overrides applied Ollama's way, and the token
 * estimate that sits at or above the real count.
 */
export class OllamaModels implements WireModels {
  readonly defaultModel: string;
  readonly #context: AdapterContext;
  readonly #defaults: OllamaDefaults;
  readonly #catalog: OllamaModelCatalog;

  /** `defaults` are the adapter's checked `config.options`; `catalog` caches `/api/show`. */
  constructor(context: AdapterContext, defaults: OllamaDefaults, catalog: OllamaModelCatalog) {
    this.#context = context;
    this.#defaults = defaults;
    this.#catalog = catalog;
    this.defaultModel = defaults.defaultModel ?? DEFAULT_OLLAMA_MODEL;
  }

  /** What `/api/show` reported for the model (conservative defaults until read), no overrides. */
  capabilities(wireName: string): AdapterCapabilities {
    return ollamaCapabilities(this.#catalog.get(wireName), { configured: this.#defaults.numCtx });
  }

  /**
   * What `/api/show` reported with `capabilityOverrides` on top. `max_context_tokens` is the
   * `num_ctx` the adapter sends for the model, which Ollama never exceeds.
   */
  overridden(model: string, wireName: string): AdapterCapabilities {
    return ollamaCapabilities(this.#catalog.get(wireName), {
      configured: this.#defaults.numCtx,
      overrides: this.#override(model, wireName),
    });
  }

  /**
   * Input-token estimate for a local model, without calling Ollama: core's heuristic ×
   * `options.token_estimate_factor` (1.2) plus chat-template overhead, meant to sit at or above
   * the real count so routing keeps prompts that Ollama would truncate away.
   */
  estimateInputTokens(
    messages: readonly Message[],
    tools: readonly ToolDefinition[],
    system_prompt: string | null | undefined,
  ): number {
    return estimateOllamaInputTokens(
      messages,
      tools,
      system_prompt,
      this.#defaults.tokenEstimateFactor ?? OLLAMA_TOKEN_ESTIMATE_FACTOR,
    );
  }

  /** Overrides by canonical id, wire name, or either in Ollama's normalized form (`:latest`). */
  #override(model: string, wire: string): Partial<AdapterCapabilities> | undefined {
    const overrides = this.#context.runtime.capabilityOverrides;
    if (!overrides) return undefined;
    const normalized = normalizeOllamaModelName(wire);
    return (
      overrides[model] ??
      overrides[wire] ??
      overrides[normalized] ??
      overrides[`${OLLAMA}:${wire}`] ??
      overrides[`${OLLAMA}:${normalized}`]
    );
  }
}
