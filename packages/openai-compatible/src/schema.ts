import { AdapterCapabilitiesSchema } from '@yourtool/core';
import { parseAdapterOptions } from '@yourtool/core/adapter';
import { z } from 'zod';
import { REQUEST_ORDER_RULES } from './codec/request-order.js';
import type { OpenAICompatibleOptions, PresetName, RequestOrderRule } from './options.js';

/** The presets `options.preset` accepts. */
export const PRESET_NAMES: readonly PresetName[] = ['groq', 'mistral', 'vllm', 'azure', 'deepseek'];

/** A provider key: lower-case letters, digits, `.`, `_` or `-`, starting with a letter or digit. */
export const PROVIDER_KEY = /^[a-z0-9][a-z0-9._-]*$/;

/** Why `pattern` is not a regular expression, or `null` when it is one. */
function regexProblem(pattern: string): string | null {
  try {
    new RegExp(pattern);
    return null;
  } catch (error) {
    return `not a regular expression (${(error as Error).message})`;
  }
}

const ToolIdRulesSchema = z.strictObject({
  pattern: z
    .string()
    .superRefine((pattern, context) => {
      const problem = regexProblem(pattern);
      if (problem) context.addIssue({ code: 'custom', message: problem });
    })
    .optional(),
  max_length: z.number().int().positive().optional(),
});

/** One model of the `models` option: core's capability fields plus the model's wire quirks. */
const ModelSpecSchema = z.strictObject({
  ...AdapterCapabilitiesSchema.partial().shape,
  stop_sequences: z.enum(['sent', 'emulated']).optional(),
  temperature: z.boolean().optional(),
});

const nonEmpty = z.string().min(1);

/**
 * The schema of {@link OpenAICompatibleOptions} (snake_case, as in models.yaml; strict: an
 * unknown key is refused, so a misspelt option is never silently ignored).
 */
export const OpenAICompatibleOptionsSchema = z.strictObject({
  preset: z
    .enum(PRESET_NAMES as [PresetName, ...PresetName[]], {
      error: `unknown preset (known: ${PRESET_NAMES.join(', ')})`,
    })
    .optional(),
  provider: z
    .string()
    .regex(PROVIDER_KEY, 'must be lower-case letters, digits, ., _ or -')
    .optional(),
  api_key_env: nonEmpty.optional(),
  base_url_env: nonEmpty.optional(),
  requires_api_key: z.boolean().optional(),
  models: z.record(z.string(), ModelSpecSchema).optional(),
  default_model: nonEmpty.optional(),
  include_usage: z.boolean().optional(),
  max_tokens_field: z.enum(['max_tokens', 'max_completion_tokens']).optional(),
  reasoning_field: z.enum(['reasoning_content', 'reasoning', 'both', 'none']).optional(),
  reasoning_replay: z.boolean().optional(),
  reasoning_required_with_tool_calls: z.boolean().optional(),
  request_order: z
    .array(z.enum(REQUEST_ORDER_RULES as [RequestOrderRule, ...RequestOrderRule[]]))
    .optional(),
  tool_id: ToolIdRulesSchema.optional(),
  unsupported_parameters: z.array(z.string()).optional(),
  extra_body: z.record(z.string(), z.unknown()).optional(),
  azure: z
    .strictObject({
      api_version: nonEmpty.optional(),
      deployments: z.record(z.string(), z.string()).optional(),
    })
    .optional(),
}) satisfies z.ZodType<OpenAICompatibleOptions>;

/**
 * The provider key to name in an error about `options`: the option's own when it is a string,
 * else the preset's name when it is one, else `fallback`.
 */
function labelOf(options: unknown, fallback: string): string {
  const raw = (options ?? {}) as { provider?: unknown; preset?: unknown };
  if (typeof raw.provider === 'string' && PROVIDER_KEY.test(raw.provider)) return raw.provider;
  if (PRESET_NAMES.includes(raw.preset as PresetName)) return raw.preset as string;
  return fallback;
}

/**
 * Checks an adapter's `options` against {@link OpenAICompatibleOptionsSchema}. It runs before
 * the adapter's base class is built, since the provider key (the adapter's name) is one of the
 * options; otherwise it is what core's `AdapterBase.parseOptions` does.
 * @throws AdapterOptionError naming the first offending field (`options.<path>`), never quoting
 * its value.
 */
export function parseCompatibleOptions(
  options: unknown,
  fallbackLabel: string,
): OpenAICompatibleOptions {
  return parseAdapterOptions(
    OpenAICompatibleOptionsSchema,
    options,
    labelOf(options, fallbackLabel),
  );
}

/**
 * `providerOptions[<provider key>]`: the adapter takes no per-call options, so any key is a
 * mistake, refused by core's `parseCallOptions` before anything is sent.
 */
export const OpenAICompatibleCallOptionsSchema = z.strictObject({});
