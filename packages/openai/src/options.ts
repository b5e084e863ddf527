import { lazySchema } from '@yourtool/core/adapter';
import type { z } from 'zod';
import type { OpenAIReasoningEffort, OpenAIReasoningSummary } from './models.js';

/**
 * Which OpenAI API an `OpenAIAdapter` calls: `chat_completions` (`POST /chat/completions`, the
 * default) or `responses` (`POST /responses`, which returns reasoning that can be replayed;
 * decision 0126).
 */
export type OpenAIApi = 'chat_completions' | 'responses';

/** The APIs `options.api` accepts. */
export const OPENAI_APIS: readonly OpenAIApi[] = ['chat_completions', 'responses'];

const REASONING_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'] as const;
const REASONING_SUMMARIES = ['auto', 'concise', 'detailed'] as const;

/**
 * OpenAI options read from `AdapterConfig.options` (the `options:` of a models.yaml entry,
 * snake_case), defaults for every call. Checked at construction against
 * {@link OpenAIConfigOptionsSchema}: an unknown key or a wrong value is an `AdapterOptionError`.
 */
export interface OpenAIConfigOptions {
  /**
   * The API this adapter calls. Default `chat_completions`. `responses` serves every call
   * through `OpenAIResponsesAdapter`: reasoning models then declare `supports_thinking` and their
   * reasoning survives a tool loop and a model swap and back. In models.yaml, two adapter entries
   * of `type: openai` (one with `options: { api: responses }`) let each model pick its API.
   */
  api?: OpenAIApi;
  /**
   * Responses API only: default `reasoning.summary` (`auto`, `concise`, `detailed`) for models
   * that reason. Unset: no summaries, reasoning comes back encrypted only. OpenAI may require a
   * verified organization for summaries.
   */
  reasoning_summary?: OpenAIReasoningSummary;
  /** `OpenAI-Organization` header. */
  organization?: string;
  /** `OpenAI-Project` header. */
  project?: string;
  /**
   * Default `reasoning_effort` for models that reason (per call:
   * `providerOptions.openai.reasoningEffort`). Unset: the model's own default.
   */
  reasoning_effort?: OpenAIReasoningEffort;
  /**
   * Send `output_schema` with `strict: true`, projected onto the strict rules (default true);
   * `false` always sends it as it is, as guidance only.
   */
  strict_structured_output?: boolean;
}

/** The schema of {@link OpenAIConfigOptions} (strict: unknown keys are refused). */
export const OpenAIConfigOptionsSchema = lazySchema(
  (z) =>
    z.strictObject({
      api: z.enum(OPENAI_APIS as [OpenAIApi, ...OpenAIApi[]]).optional(),
      reasoning_summary: z.enum(REASONING_SUMMARIES).optional(),
      organization: z.string().optional(),
      project: z.string().optional(),
      reasoning_effort: z.enum(REASONING_EFFORTS).optional(),
      strict_structured_output: z.boolean().optional(),
    }) satisfies z.ZodType<OpenAIConfigOptions>,
  // what `{}` parses to: options nobody set are read without zod (decision 0198)
  { emptyOutput: () => ({}) },
);

/**
 * Per-call OpenAI options (`CallOptions.providerOptions.openai`, camelCase), checked on each call
 * against {@link OpenAICallOptionsSchema}: a wrong value is an `InvalidRequestError` naming it.
 */
export interface OpenAICallOptions {
  /** `reasoning_effort` (Chat Completions) or `reasoning.effort` (Responses) for this call. */
  reasoningEffort?: OpenAIReasoningEffort;
  /** Responses API only: `reasoning.summary` for this call. */
  reasoningSummary?: OpenAIReasoningSummary;
  /** @deprecated Spelled `reasoningEffort` now; accepted until the next minor version. */
  reasoning_effort?: OpenAIReasoningEffort;
  /** @deprecated Spelled `reasoningSummary` now; accepted until the next minor version. */
  reasoning_summary?: OpenAIReasoningSummary;
}

/** Per-call options as the transports read them (the deprecated spellings folded in). */
export interface ParsedOpenAICallOptions {
  reasoningEffort: OpenAIReasoningEffort | null;
  reasoningSummary: OpenAIReasoningSummary | null;
}

/** The schema of {@link OpenAICallOptions} (strict), read as {@link ParsedOpenAICallOptions}. */
export const OpenAICallOptionsSchema = lazySchema(
  (z) =>
    z
      .strictObject({
        reasoningEffort: z.enum(REASONING_EFFORTS).optional(),
        reasoningSummary: z.enum(REASONING_SUMMARIES).optional(),
        reasoning_effort: z.enum(REASONING_EFFORTS).optional(),
        reasoning_summary: z.enum(REASONING_SUMMARIES).optional(),
      })
      .transform(
        (options): ParsedOpenAICallOptions => ({
          reasoningEffort: options.reasoningEffort ?? options.reasoning_effort ?? null,
          reasoningSummary: options.reasoningSummary ?? options.reasoning_summary ?? null,
        }),
      ),
  // what `{}` parses to (see OpenAIConfigOptionsSchema)
  { emptyOutput: () => ({ reasoningEffort: null, reasoningSummary: null }) },
);

/** The options of the Responses transport: the same as {@link OpenAIConfigOptions}. */
export type OpenAIResponsesConfigOptions = OpenAIConfigOptions;

/** Per-call options of the Responses transport: the same as {@link OpenAICallOptions}. */
export type OpenAIResponsesCallOptions = OpenAICallOptions;
