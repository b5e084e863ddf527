import {
  type AdapterConfigInput,
  type CallRunnerOptions,
  InvalidModelIdError,
  parseModelId,
} from '@yourtool/core';
import { z } from 'zod';
import type { OllamaThinkOption } from './codec/request.js';

/** Thinking for models that support it: `true`, `false` or a level. */
const ThinkSchema: z.ZodType<OllamaThinkOption, OllamaThinkOption> = z.union(
  [z.boolean(), z.enum(['low', 'medium', 'high'])],
  { error: 'expected true, false, "low", "medium" or "high"' },
);

/** How long Ollama keeps a model loaded: a duration (`"5m"`) or seconds (`-1` forever). */
const KeepAliveSchema = z.union([z.string().min(1), z.number()], {
  error: 'expected a duration such as "5m", or a number of seconds',
});

/** Ollama model options (`top_p`, `seed`, `repeat_penalty`, ...), sent as they are. */
const ModelOptionsSchema = z.record(z.string(), z.unknown());

/** A canonical model id (`ollama:qwen3:8b`). */
const ModelIdSchema = z.string().superRefine((value, context) => {
  try {
    parseModelId(value);
  } catch (error) {
    if (!(error instanceof InvalidModelIdError)) throw error;
    context.addIssue({ code: 'custom', message: error.message });
  }
});

/**
 * The adapter's `options` in its config (snake_case, as in models.yaml), checked once at
 * construction; an unknown key, a wrong type or a value out of range is an `AdapterOptionError`
 * naming it. Parsed to camelCase, the names the per-call options use.
 */
export const OllamaConfigOptionsSchema = z
  .strictObject({
    /**
     * The context window to use (sent as `num_ctx` on every call, and declared as
     * `max_context_tokens`). Default: the model's Modelfile `num_ctx`, else 4096. Never more than
     * the model's trained context. Per model: `capabilityOverrides[model].max_context_tokens`.
     */
    num_ctx: z.number().int().positive().optional(),
    /** Thinking for models that support it: `true`, `false` (default) or a level. */
    think: ThinkSchema.optional(),
    /** How long Ollama keeps a model loaded after a call (`"5m"`, seconds, `-1` forever). */
    keep_alive: KeepAliveSchema.optional(),
    /**
     * Whether Ollama may drop the oldest messages of a prompt longer than `num_ctx`. Default
     * false: the server refuses it (`ContextOverflowError`) instead of answering a truncated
     * conversation. Servers that predate the field truncate regardless.
     */
    truncate: z.boolean().optional(),
    /** Whether Ollama may shift old context out while generating. Default false (it stops). */
    shift: z.boolean().optional(),
    /** Further model options for every call (`top_p`, `seed`, `repeat_penalty`, ...). */
    model_options: ModelOptionsSchema.optional(),
    /**
     * Read a model's capabilities from `/api/show` on the first call to it. Default true. Off, the
     * model keeps the conservative defaults unless `detectCapabilities` or `capabilityOverrides`
     * say more.
     */
    detect_capabilities: z.boolean().optional(),
    /** Multiplier over core's token heuristic in `estimateInputTokens`, from 1 to 4. Default 1.2. */
    token_estimate_factor: z.number().min(1).max(4).optional(),
    /** The model `adapter.capabilities` describes. Default `ollama:llama3.2`. */
    default_model: ModelIdSchema.optional(),
  })
  .transform((o) => ({
    numCtx: o.num_ctx,
    think: o.think,
    keepAlive: o.keep_alive,
    truncate: o.truncate,
    shift: o.shift,
    modelOptions: o.model_options,
    detectCapabilities: o.detect_capabilities,
    tokenEstimateFactor: o.token_estimate_factor,
    defaultModel: o.default_model,
  }));

/** Ollama options read from `AdapterConfig.options` (defaults for every call). */
export type OllamaConfigOptions = z.input<typeof OllamaConfigOptionsSchema>;

/** The config options once parsed (camelCase). */
export type OllamaDefaults = z.output<typeof OllamaConfigOptionsSchema>;

/** The adapter's configuration: core's `AdapterConfig` with typed Ollama `options`. */
export type OllamaAdapterConfig = Omit<AdapterConfigInput, 'options'> & {
  options?: OllamaConfigOptions;
};

/**
 * This call's options (`providerOptions.ollama`, camelCase), checked on every call; an unknown
 * key or a wrong type is an `InvalidRequestError` naming it. `keep_alive` is the deprecated
 * spelling of `keepAlive`, still taken (not both at once).
 */
export const OllamaCallOptionsSchema = z
  .strictObject({
    /** Thinking for this call (over `options.think`); sent only to models that support it. */
    think: ThinkSchema.optional(),
    /** How long Ollama keeps the model loaded after this call (over `options.keep_alive`). */
    keepAlive: KeepAliveSchema.optional(),
    /** @deprecated Use `keepAlive`; taken until the next minor version. */
    keep_alive: KeepAliveSchema.optional(),
    /** Model options for this call, over `model_options`. */
    options: ModelOptionsSchema.optional(),
  })
  .refine((o) => o.keepAlive === undefined || o.keep_alive === undefined, {
    message: 'set keepAlive or its deprecated spelling keep_alive, not both',
    path: ['keep_alive'],
  })
  .transform((o) => ({
    think: o.think,
    keepAlive: o.keepAlive ?? o.keep_alive,
    options: o.options,
  }));

/** Per-call options, passed as `providerOptions.ollama`. */
export type OllamaCallOptions = z.input<typeof OllamaCallOptionsSchema>;

/** Construction options of `OllamaAdapter` besides the config (core's, unchanged). */
export type OllamaRuntimeOptions = CallRunnerOptions;
