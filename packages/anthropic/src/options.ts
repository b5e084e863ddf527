import { builtSchema, lazySchema } from '@yourtool/core/adapter';
import type { z } from 'zod';
import type { AnthropicThinkingOption } from './codec/request.js';

/**
 * How thinking is asked for, in the config (`options.thinking`) and per call
 * (`providerOptions.anthropic.thinking`): `"adaptive"`, `"off"`, `{ type: "adaptive" }`,
 * `{ type: "enabled", budget_tokens }` or `{ budget_tokens }`.
 */
export const AnthropicThinkingSchema: z.ZodType<AnthropicThinkingOption, AnthropicThinkingOption> =
  lazySchema((z) => {
    const budgetTokens = z.number().int().positive();
    return z.union(
      [
        z.enum(['adaptive', 'off']),
        z.strictObject({ type: z.literal('adaptive') }),
        z.strictObject({ type: z.literal('enabled'), budget_tokens: budgetTokens }),
        z.strictObject({ budget_tokens: budgetTokens }),
      ],
      {
        error:
          'expected "adaptive", "off", { type: "adaptive" }, { type: "enabled", budget_tokens } or { budget_tokens } with a whole number of tokens',
      },
    );
  });

/**
 * The adapter's `options` in its config (snake_case, as in models.yaml), checked once at
 * construction; an unknown key or a wrong type is an `AdapterOptionError` naming it. Parsed to
 * camelCase, the names the per-call options use.
 */
export const AnthropicConfigOptionsSchema = lazySchema(
  (z) =>
    z
      .strictObject({
        /** Default extended thinking (per call: `providerOptions.anthropic.thinking`). */
        thinking: builtSchema(AnthropicThinkingSchema).optional(),
        /** Cache breakpoints on the system prompt and tools. Default true. */
        prompt_caching: z.boolean().optional(),
        /** `anthropic-version` header; see `AnthropicRequestOptions.apiVersion`. */
        anthropic_version: z.string().min(1).optional(),
      })
      .transform((o) => ({
        thinking: o.thinking,
        promptCaching: o.prompt_caching,
        anthropicVersion: o.anthropic_version,
      })),
  // what `{}` parses to: options nobody set are read without zod (decision 0198)
  {
    emptyOutput: () => ({
      thinking: undefined,
      promptCaching: undefined,
      anthropicVersion: undefined,
    }),
  },
);

/** Anthropic options read from `AdapterConfig.options` (defaults for every call). */
export type AnthropicConfigOptions = z.input<typeof AnthropicConfigOptionsSchema>;

/** The config options once parsed (camelCase). */
export type AnthropicDefaults = z.output<typeof AnthropicConfigOptionsSchema>;

/**
 * This call's options (`providerOptions.anthropic`, camelCase), checked on every call; an unknown
 * key or a wrong type is an `InvalidRequestError` naming it.
 */
export const AnthropicCallOptionsSchema = lazySchema(
  (z) =>
    z.strictObject({
      /** Thinking for this call (over `options.thinking`). */
      thinking: builtSchema(AnthropicThinkingSchema).optional(),
      /** Cache breakpoints for this call (over `options.prompt_caching`). */
      promptCaching: z.boolean().optional(),
    }),
  // what `{}` parses to (see AnthropicConfigOptionsSchema)
  { emptyOutput: () => ({}) },
);

/** Per-call options of the adapter (`providerOptions.anthropic`). */
export type AnthropicCallOptions = z.input<typeof AnthropicCallOptionsSchema>;
