import { AdapterOptionError, type ToolIdRules } from '@yourtool/core';
import type {
  OpenAICompatibleOptions,
  PresetName,
  ResolvedQuirks,
  ToolIdRulesConfig,
} from './options.js';
import { PRESETS } from './presets.js';
import { parseCompatibleOptions } from './schema.js';

/** The provider key of the adapter when neither the options nor a preset name one. */
export const OPENAI_COMPATIBLE = 'openai-compatible';

/**
 * Turns config-file tool id rules into core's rules.
 * @throws AdapterOptionError naming `options.tool_id.pattern` or `options.tool_id.max_length`.
 */
export function toolIdRulesFromConfig(
  config: ToolIdRulesConfig | undefined,
  label: string,
): ToolIdRules | undefined {
  if (!config) return undefined;
  const rules: ToolIdRules = {};
  if (config.pattern !== undefined) {
    try {
      rules.pattern = new RegExp(config.pattern);
    } catch (error) {
      throw new AdapterOptionError(
        label,
        'options.tool_id.pattern',
        `not a regular expression (${(error as Error).message})`,
      );
    }
  }
  if (config.max_length !== undefined) {
    if (!Number.isInteger(config.max_length) || config.max_length < 1) {
      throw new AdapterOptionError(
        label,
        'options.tool_id.max_length',
        'expected a positive integer',
      );
    }
    rules.maxLength = config.max_length;
  }
  return rules;
}

/**
 * Resolves an adapter's quirks: the config's options over its preset's over the defaults.
 * @throws AdapterOptionError naming the first bad option (`options.<field>`).
 */
export function resolveQuirks(options: OpenAICompatibleOptions): ResolvedQuirks {
  const checked = parseCompatibleOptions(options, OPENAI_COMPATIBLE);
  const presetName = checked.preset;
  const preset = presetName ? PRESETS[presetName as PresetName] : undefined;
  const merged: OpenAICompatibleOptions = { ...preset?.options, ...checked };
  const provider = merged.provider ?? preset?.provider ?? OPENAI_COMPATIBLE;
  const requestOrder = merged.request_order ?? [];
  const models = { ...preset?.options.models, ...checked.models };
  const envName = provider.toUpperCase().replace(/[^A-Z0-9]/g, '_');
  return {
    provider,
    apiKeyEnv: merged.api_key_env ?? `${envName}_API_KEY`,
    baseUrlEnv: merged.base_url_env ?? `${envName}_BASE_URL`,
    defaultBaseUrl: preset?.base_url,
    requiresApiKey: merged.requires_api_key ?? true,
    models,
    defaultModel: merged.default_model ?? Object.keys(models)[0],
    includeUsage: merged.include_usage ?? true,
    maxTokensField: merged.max_tokens_field ?? 'max_tokens',
    reasoningField: merged.reasoning_field ?? 'both',
    reasoningReplay: merged.reasoning_replay ?? false,
    reasoningRequiredWithToolCalls: merged.reasoning_required_with_tool_calls ?? false,
    requestOrder: [...requestOrder],
    toolIdRules: toolIdRulesFromConfig(merged.tool_id, provider),
    unsupportedParameters: merged.unsupported_parameters ?? [],
    extraBody: merged.extra_body ?? {},
    azure: merged.azure ?? (presetName === 'azure' ? {} : undefined),
    openAIModels: presetName === 'azure',
  };
}
