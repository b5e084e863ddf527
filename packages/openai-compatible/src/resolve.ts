import { InvalidRequestError, type ToolIdRules } from '@yourtool/core';
import { REQUEST_ORDER_RULES } from './codec/request-order.js';
import type {
  MaxTokensField,
  OpenAICompatibleOptions,
  PresetName,
  ReasoningField,
  ResolvedQuirks,
  ToolIdRulesConfig,
} from './options.js';
import { PRESETS } from './presets.js';

/** The provider key of the adapter when neither the options nor a preset name one. */
export const OPENAI_COMPATIBLE = 'openai-compatible';

const MAX_TOKENS_FIELDS: readonly MaxTokensField[] = ['max_tokens', 'max_completion_tokens'];
const REASONING_FIELDS: readonly ReasoningField[] = [
  'reasoning_content',
  'reasoning',
  'both',
  'none',
];
const PROVIDER_KEY = /^[a-z0-9][a-z0-9._-]*$/;

function invalid(label: string, problem: string): InvalidRequestError {
  return new InvalidRequestError(`invalid ${label} adapter options: ${problem}`, {
    provider: label,
  });
}

/** Turns config-file tool id rules into core's rules. */
export function toolIdRulesFromConfig(
  config: ToolIdRulesConfig | undefined,
  label: string,
): ToolIdRules | undefined {
  if (!config) return undefined;
  const rules: ToolIdRules = {};
  if (config.pattern !== undefined) {
    try {
      rules.pattern = new RegExp(config.pattern);
    } catch {
      throw invalid(label, `tool_id.pattern is not a regular expression: ${config.pattern}`);
    }
  }
  if (config.max_length !== undefined) {
    if (!Number.isInteger(config.max_length) || config.max_length < 1) {
      throw invalid(label, 'tool_id.max_length must be a positive integer');
    }
    rules.maxLength = config.max_length;
  }
  return rules;
}

/**
 * Resolves an adapter's quirks: the config's options over its preset's over the defaults.
 * Throws `InvalidRequestError` naming the bad option.
 */
export function resolveQuirks(options: OpenAICompatibleOptions): ResolvedQuirks {
  const presetName = options.preset;
  if (presetName !== undefined && !(presetName in PRESETS)) {
    throw invalid(
      OPENAI_COMPATIBLE,
      `unknown preset "${String(presetName)}" (known: ${Object.keys(PRESETS).join(', ')})`,
    );
  }
  const preset = presetName ? PRESETS[presetName as PresetName] : undefined;
  const merged: OpenAICompatibleOptions = { ...preset?.options, ...options };
  const provider = merged.provider ?? preset?.provider ?? OPENAI_COMPATIBLE;
  if (!PROVIDER_KEY.test(provider)) {
    throw invalid(provider, `provider "${provider}" must be lower-case letters, digits, ., _ or -`);
  }
  const maxTokensField = merged.max_tokens_field ?? 'max_tokens';
  if (!MAX_TOKENS_FIELDS.includes(maxTokensField)) {
    throw invalid(provider, `max_tokens_field must be one of ${MAX_TOKENS_FIELDS.join(', ')}`);
  }
  const reasoningField = merged.reasoning_field ?? 'both';
  if (!REASONING_FIELDS.includes(reasoningField)) {
    throw invalid(provider, `reasoning_field must be one of ${REASONING_FIELDS.join(', ')}`);
  }
  if (
    merged.unsupported_parameters !== undefined &&
    (!Array.isArray(merged.unsupported_parameters) ||
      !merged.unsupported_parameters.every((p) => typeof p === 'string'))
  ) {
    throw invalid(provider, 'unsupported_parameters must be a list of field names');
  }
  const requestOrder = merged.request_order ?? [];
  if (
    !Array.isArray(requestOrder) ||
    !requestOrder.every((rule) => REQUEST_ORDER_RULES.includes(rule))
  ) {
    throw invalid(
      provider,
      `request_order must be a list of ${REQUEST_ORDER_RULES.join(', ')} (got ${JSON.stringify(requestOrder)})`,
    );
  }
  const models = { ...preset?.options.models, ...options.models };
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
    maxTokensField,
    reasoningField,
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
