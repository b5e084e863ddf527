import { type AdapterConfigInput, type CallRunnerOptions, InvalidRequestError, parseModelId } from '@yourtool/core';
import { OLLAMA, type OllamaThinkOption } from './codec/request.js';

/** Ollama options read from `AdapterConfig.options` (defaults for every call). */
export interface OllamaConfigOptions {
  /**
   * The context window to use (sent as `num_ctx` on every call, and declared as
   * `max_context_tokens`). Default: the model's Modelfile `num_ctx`, else 4096. Never more than
   * the model's trained context. Per model: `capabilityOverrides[model].max_context_tokens`.
   */
  num_ctx?: number;
  /** Thinking for models that support it: `true`, `false` (default) or a level. */
  think?: OllamaThinkOption;
  /** How long Ollama keeps a model loaded after a call (`"5m"`, seconds, `-1` forever). */
  keep_alive?: string | number;
  /**
   * Whether Ollama may drop the oldest messages of a prompt longer than `num_ctx`. Default
   * false: the server refuses it (`ContextOverflowError`) instead of answering a truncated
   * conversation. Servers that predate the field truncate regardless.
   */
  truncate?: boolean;
  /** Whether Ollama may shift old context out while generating. Default false (it stops). */
  shift?: boolean;
  /** Further model options for every call (`top_p`, `seed`, `repeat_penalty`, ...). */
  model_options?: Record<string, unknown>;
  /**
   * Read a model's capabilities from `/api/show` on the first call to it. Default true. Off, the
   * model keeps the conservative defaults unless `detectCapabilities` or `capabilityOverrides`
   * say more.
   */
  detect_capabilities?: boolean;
  /** Multiplier over core's token heuristic in `estimateInputTokens`. Default 1.2. */
  token_estimate_factor?: number;
  /** The model `adapter.capabilities` describes. Default `ollama:llama3.2`. */
  default_model?: string;
}

/** The adapter's configuration: core's `AdapterConfig` with typed Ollama `options`. */
export type OllamaAdapterConfig = Omit<AdapterConfigInput, 'options'> & {
  options?: OllamaConfigOptions;
};

/** Per-call options, passed as `providerOptions.ollama`. */
export interface OllamaCallOptions {
  /** Thinking for this call (over `options.think`); sent only to models that support it. */
  think?: OllamaThinkOption;
  /** How long Ollama keeps the model loaded after this call (over `options.keep_alive`). */
  keep_alive?: string | number;
  /** Model options for this call, over `model_options`. */
  options?: Record<string, unknown>;
}

/** Construction options of {@link OllamaAdapter} besides the config (core's, unchanged). */
export type OllamaRuntimeOptions = CallRunnerOptions;

function configError(message: string): InvalidRequestError {
  return new InvalidRequestError(`invalid Ollama adapter config: ${message}`, { provider: OLLAMA });
}

/** Checks the Ollama `options` of a config; throws `InvalidRequestError` naming the bad one. */
export function validateOptions(options: OllamaConfigOptions): OllamaConfigOptions {
  const positiveInt = (value: unknown) =>
    value === undefined || (typeof value === 'number' && Number.isInteger(value) && value > 0);
  if (!positiveInt(options.num_ctx))
    throw configError('options.num_ctx must be a positive integer');
  const factor = options.token_estimate_factor;
  if (factor !== undefined && !(typeof factor === 'number' && factor >= 1 && factor <= 4)) {
    throw configError('options.token_estimate_factor must be a number from 1 to 4');
  }
  const think = options.think;
  if (
    think !== undefined &&
    typeof think !== 'boolean' &&
    !['low', 'medium', 'high'].includes(think)
  )
    throw configError('options.think must be true, false, "low", "medium" or "high"');
  if (options.default_model !== undefined) parseModelId(options.default_model);
  return options;
}
