import type { z } from 'zod';
import { builtSchema as built, lazySchema } from '../lazy-schema.js';
import { ContentBlockSchema } from './content.js';
import { DecimalStringSchema, MessageSchema } from './message.js';
import { ToolDefinitionSchema } from './tool.js';
import { ToolChoiceSchema } from './tool-choice.js';

/** Raw token counts reported by an adapter. Cost is never reported here. */
export const TokenUsageSchema = lazySchema((z) =>
  z.object({
    input_tokens: z.number().int().nonnegative(),
    output_tokens: z.number().int().nonnegative(),
    cached_input_tokens: z.number().int().nonnegative().default(0),
    cache_creation_input_tokens: z.number().int().nonnegative().default(0),
    /**
     * Of `output_tokens`, how many the model spent reasoning (OpenAI, Gemini thoughts, DeepSeek,
     * OpenRouter). Informational: `output_tokens` already counts them. Absent when the provider
     * does not say.
     */
    reasoning_tokens: z.number().int().nonnegative().optional(),
    /**
     * What the provider itself says the call cost in USD (OpenRouter's `usage.cost`), as a decimal
     * string. Kept beside the locally computed cost for reconciliation, never instead of it.
     */
    provider_cost_usd: built(DecimalStringSchema).nullable().optional(),
    /** True when the provider sent no usage and the adapter estimated the counts. */
    estimated: z.boolean().optional(),
  }),
);
/** Raw token counts. */
export type TokenUsage = z.output<typeof TokenUsageSchema>;

import { StopReasonSchema } from './stop-reason.js';

export { type StopReason, StopReasonSchema } from './stop-reason.js';
export { type ToolChoice, ToolChoiceSchema } from './tool-choice.js';

/** Construction-time configuration of an adapter (provider-adapter-contract §2). */
export const AdapterConfigSchema = lazySchema((z) =>
  z.object({
    api_key: z.string().nullable().optional(),
    base_url: z.string().url().nullable().optional(),
    /**
     * Longest one attempt of a call may take, from sending the request to the last byte of the
     * reply (a stream's last chunk included). Passed: a `network` failure, retried.
     */
    timeout_seconds: z.number().positive().default(600),
    /**
     * Longest silence between two chunks of a stream, once its first chunk arrived (the wait for
     * the first chunk is bounded by `timeout_seconds` only: reasoning models may stream nothing
     * while they think). Passed: a `network` failure. Not in the contract's AdapterConfig; an
     * extension of this implementation (docs/decisions/0075).
     */
    idle_timeout_seconds: z.number().positive().default(60),
    max_retries: z.number().int().nonnegative().default(2),
    extra_headers: z.record(z.string(), z.string()).default({}),
    /** Adapter-specific knobs. Core never reads them. */
    options: z.record(z.string(), z.unknown()).default({}),
  }),
);
/** Adapter configuration after defaults. */
export type AdapterConfig = z.output<typeof AdapterConfigSchema>;
/** Adapter configuration as users write it. */
export type AdapterConfigInput = z.input<typeof AdapterConfigSchema>;

/**
 * What a model behind an adapter can take and produce. Declarations must be honest: the router
 * relies on them to keep a history on a model that can accept it.
 */
export const AdapterCapabilitiesSchema = lazySchema((z) =>
  z.object({
    supports_images: z.boolean(),
    supports_thinking: z.boolean(),
    supports_tools: z.boolean(),
    supports_system_prompt: z.boolean(),
    supports_structured_output: z.boolean(),
    supports_streaming: z.boolean(),
    supports_streaming_tool_calls: z.boolean(),
    supports_parallel_tool_calls: z.boolean(),
    supports_prompt_caching: z.boolean(),
    /**
     * Whether the model can be made to call a tool (`tool_choice` `required` or a named tool).
     * Absent means it can whenever `supports_tools` is true; `false` (Ollama) means a forced choice
     * is sent as `auto` with a `tool_choice_downgraded` WARN.
     */
    supports_forced_tool_choice: z.boolean().optional(),
    max_context_tokens: z.number().int().positive(),
    max_output_tokens: z.number().int().positive(),
    accepted_image_media_types: z.array(z.string()),
  }),
);
/** Capabilities of a model behind an adapter. */
export type AdapterCapabilities = z.output<typeof AdapterCapabilitiesSchema>;

/** One call to a model, in canonical form. */
export const CanonicalRequestSchema = lazySchema((z) =>
  z.object({
    request_id: z.string().min(1),
    messages: z.array(built(MessageSchema)),
    tools: z.array(built(ToolDefinitionSchema)).default([]),
    system_prompt: z.string().nullable().optional(),
    model: z.string().min(1),
    max_output_tokens: z.number().int().positive(),
    stop_sequences: z.array(z.string()).default([]),
    temperature: z.number().min(0).nullable().optional(),
    output_schema: z.record(z.string(), z.unknown()).nullable().optional(),
    /**
     * Whether and which tool the model must call (see {@link ToolChoiceSchema}). Absent means
     * `auto`. A named tool must be among `tools`; `required` and a named tool need at least one.
     */
    tool_choice: built(ToolChoiceSchema).optional(),
    stream: z.boolean().default(false),
  }),
);
/** A canonical request (defaults applied). */
export type CanonicalRequest = z.output<typeof CanonicalRequestSchema>;
/** A canonical request as callers write it: `tools`, `stop_sequences` and `stream` optional. */
export type CanonicalRequestInput = z.input<typeof CanonicalRequestSchema>;

/** What an adapter returns for a completed call. The caller assembles the final Message. */
export const CanonicalResponseSchema = lazySchema((z) =>
  z.object({
    request_id: z.string(),
    model: z.string(),
    provider: z.string(),
    content: z.array(built(ContentBlockSchema)),
    stop_reason: built(StopReasonSchema),
    usage: built(TokenUsageSchema),
    latency_ms: z.number().int().nonnegative(),
    /** Adapter-private round-trip data for this reply, stored as `metadata.provider_raw`. */
    provider_raw: z.record(z.string(), z.unknown()).nullable().optional(),
    /**
     * The provider's own id of this reply (Anthropic's `msg_...`, Chat Completions' `chatcmpl-...`,
     * the Responses API's `resp_...`, Gemini's `responseId`), when it sends one: for matching a
     * call with the provider's logs. Canonical, so nothing but the adapter reads `provider_raw`.
     */
    provider_response_id: z.string().nullable().optional(),
    /**
     * The model that answered, as a canonical id (`provider:name-the-provider-reported`), when the
     * provider says; it differs from `model` behind routers, aliases and deployments.
     */
    served_model: z.string().nullable().optional(),
    /**
     * The provider's refusal explanation, when it sends one apart from the text (OpenAI's
     * `refusal`). The same text is also in `content`, so a replay shows what the assistant said.
     */
    refusal: z.string().nullable().optional(),
  }),
);
/** A canonical response. */
export type CanonicalResponse = z.output<typeof CanonicalResponseSchema>;
