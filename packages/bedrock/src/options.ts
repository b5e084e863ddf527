import { z } from 'zod';
import { BEDROCK_FAMILY_NAMES } from './provider.js';

/**
 * How reasoning is asked for, in the config (`options.thinking`) and per call
 * (`providerOptions.bedrock.thinking`): `"off"`, `"adaptive"` (Claude models that take it),
 * `{ budget_tokens }` (Claude's extended thinking budget) or `{ effort }` (gpt-oss's
 * `reasoning_effort`, Nova 2's `reasoningConfig`). The model family decides how it is sent.
 */
export const BedrockThinkingSchema = z.union(
  [
    z.enum(['off', 'adaptive']),
    z.strictObject({ budget_tokens: z.number().int().positive() }),
    z.strictObject({ effort: z.enum(['low', 'medium', 'high']) }),
  ],
  {
    error:
      'expected "off", "adaptive", { budget_tokens } with a whole number of tokens, or { effort: "low" | "medium" | "high" }',
  },
);

/** A reasoning request (see {@link BedrockThinkingSchema}). */
export type BedrockThinkingOption = z.output<typeof BedrockThinkingSchema>;

/** A guardrail applied to every call (`guardrailConfig`). */
export const BedrockGuardrailSchema = z.strictObject({
  /** The guardrail's id or ARN. */
  id: z.string().min(1),
  /** Its version (`DRAFT` or a number). */
  version: z.string().min(1),
});

/**
 * The adapter's `options` in its config (snake_case, as in models.yaml), checked once at
 * construction; an unknown key or a wrong type is an `AdapterOptionError` naming it. Parsed to
 * camelCase, the names the per-call options use.
 */
export const BedrockConfigOptionsSchema = z
  .strictObject({
    /** AWS Region (default: `AWS_REGION`, then the shared config profile's `region`). */
    region: z.string().min(1).optional(),
    /** Shared config / credentials profile (default: `AWS_PROFILE`, then `default`). */
    profile: z.string().min(1).optional(),
    /**
     * The family of model ids no prefix names (application inference profile ARNs, imported
     * or custom names): model name → family.
     */
    families: z.record(z.string().min(1), z.enum(BEDROCK_FAMILY_NAMES)).optional(),
    /** Default reasoning (per call: `providerOptions.bedrock.thinking`). */
    thinking: BedrockThinkingSchema.optional(),
    /** Cache points after the system prompt, tools and history, where the family takes them. Default true. */
    prompt_caching: z.boolean().optional(),
    /** The HTTP handler: `"2"` (the SDK's default HTTP/2 handler) or `"1.1"`. Default `"2"`. */
    http_version: z.enum(['2', '1.1']).optional(),
    /** A guardrail applied to every call. */
    guardrail: BedrockGuardrailSchema.optional(),
  })
  .transform((o) => ({
    region: o.region,
    profile: o.profile,
    families: o.families ?? {},
    thinking: o.thinking,
    promptCaching: o.prompt_caching,
    httpVersion: o.http_version ?? '2',
    guardrail: o.guardrail,
  }));

/** Bedrock options read from `AdapterConfig.options` (defaults for every call). */
export type BedrockConfigOptions = z.input<typeof BedrockConfigOptionsSchema>;

/** The config options once parsed (camelCase). */
export type BedrockDefaults = z.output<typeof BedrockConfigOptionsSchema>;

/**
 * This call's options (`providerOptions.bedrock`, camelCase), checked on every call; an unknown
 * key or a wrong type is an `InvalidRequestError` naming it.
 */
export const BedrockCallOptionsSchema = z.strictObject({
  /** Reasoning for this call (over `options.thinking`). */
  thinking: BedrockThinkingSchema.optional(),
  /** Cache points for this call (over `options.prompt_caching`). */
  promptCaching: z.boolean().optional(),
  /**
   * Model-specific request fields sent as `additionalModelRequestFields`, merged over what the
   * family sets (an escape hatch for a field this adapter does not model).
   */
  additionalModelRequestFields: z.record(z.string(), z.unknown()).optional(),
});

/** Per-call options of the adapter (`providerOptions.bedrock`). */
export type BedrockCallOptions = z.input<typeof BedrockCallOptionsSchema>;
