import { z } from 'zod';
import type { OpenRouterReasoningConfig } from './codec/request.js';

/**
 * OpenRouter's `reasoning` parameter as the options give it, in OpenRouter's own spelling (it is
 * passed through to the request body): `effort`, `max_tokens`, `exclude`, `enabled`.
 */
export const OpenRouterReasoningSchema = z.strictObject({
  effort: z.enum(['max', 'xhigh', 'high', 'medium', 'low', 'minimal', 'none']).optional(),
  max_tokens: z.number().int().positive().optional(),
  exclude: z.boolean().optional(),
  enabled: z.boolean().optional(),
}) satisfies z.ZodType<OpenRouterReasoningConfig>;

/** OpenRouter's `provider` routing preferences (order, allow_fallbacks, ...), passed through. */
const ProviderPreferencesSchema = z.record(z.string(), z.unknown());

/**
 * OpenRouter options read from `AdapterConfig.options` (snake_case, as in models.yaml), defaults
 * for every call. Checked at construction against {@link OpenRouterConfigOptionsSchema}: an
 * unknown key or a wrong type is an `AdapterOptionError` naming `options.<field>`.
 */
export interface OpenRouterConfigOptions {
  /** Your app's URL, sent as the `HTTP-Referer` attribution header. */
  app_url?: string;
  /** Your app's name, sent as the `X-Title` attribution header. */
  app_title?: string;
  /** Default `reasoning` parameter (per call: `providerOptions.openrouter.reasoning`). */
  reasoning?: OpenRouterReasoningConfig;
  /** Default `provider` routing preferences (order, allow_fallbacks, data_collection, ...). */
  provider?: Record<string, unknown>;
}

/** The schema of {@link OpenRouterConfigOptions} (strict: unknown keys are refused). */
export const OpenRouterConfigOptionsSchema = z.strictObject({
  app_url: z.string().min(1).optional(),
  app_title: z.string().min(1).optional(),
  reasoning: OpenRouterReasoningSchema.optional(),
  provider: ProviderPreferencesSchema.optional(),
}) satisfies z.ZodType<OpenRouterConfigOptions>;

/**
 * Per-call OpenRouter options (`CallOptions.providerOptions.openrouter`), checked on each call
 * against {@link OpenRouterCallOptionsSchema}: a wrong value is an `InvalidRequestError` naming
 * `providerOptions.openrouter.<field>`, before anything is sent. Each replaces the config's
 * default; their contents are OpenRouter's request fields, spelt as OpenRouter spells them.
 */
export interface OpenRouterCallOptions {
  /** The `reasoning` parameter for this call. */
  reasoning?: OpenRouterReasoningConfig;
  /** The `provider` routing preferences for this call. */
  provider?: Record<string, unknown>;
}

/** The schema of {@link OpenRouterCallOptions} (strict). */
export const OpenRouterCallOptionsSchema = z.strictObject({
  reasoning: OpenRouterReasoningSchema.optional(),
  provider: ProviderPreferencesSchema.optional(),
}) satisfies z.ZodType<OpenRouterCallOptions>;
