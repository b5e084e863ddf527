import type { AdapterCapabilities, ToolIdRules } from '@yourtool/core';

/** How the output limit is named on the wire. */
export type MaxTokensField = 'max_tokens' | 'max_completion_tokens';

/**
 * Where a deployment puts its reasoning text: `reasoning_content` (DeepSeek, older vLLM),
 * `reasoning` (vLLM 0.11+, Groq, OpenRouter-style servers), `both` (read `reasoning`, else
 * `reasoning_content`; replayed as `reasoning`), or `none`.
 */
export type ReasoningField = 'reasoning_content' | 'reasoning' | 'both' | 'none';

/**
 * A message-order rule a server enforces, which the encoder satisfies (each repair a
 * `request_order_repaired` WARN):
 *
 * - `user_first`: the first message after the system message must be a user message; one saying
 *   `(The conversation continues.)` is put before a leading assistant message (Mistral);
 * - `no_user_after_tool`: a user message may not directly follow a tool message; an assistant
 *   message saying `(tool results received)` is put between them (Mistral);
 * - `prefix_last_assistant`: a request may end in an assistant message only when it is marked
 *   `prefix: true`, so it is marked (Mistral; the reply continues that message).
 */
export type RequestOrderRule = 'user_first' | 'no_user_after_tool' | 'prefix_last_assistant';

/** Tool call id rules as written in a config file (a pattern is a regular expression source). */
export interface ToolIdRulesConfig {
  /** Regular expression the whole id must match, e.g. `^[a-zA-Z0-9]{9}$`. */
  pattern?: string;
  /** Longest id the server accepts. */
  max_length?: number;
}

/** Azure OpenAI specifics. */
export interface AzureOptions {
  /**
   * The `api-version` query parameter (`2024-10-21`, `2025-04-01-preview`, ...). With it, calls
   * go to `{base_url}/openai/deployments/{deployment}/chat/completions?api-version=...` through
   * the SDK's `AzureOpenAI` client, `base_url` being the resource endpoint
   * (`https://my-resource.openai.azure.com`). Without it, the v1 API is used: `base_url` is
   * `https://my-resource.openai.azure.com/openai/v1` and the deployment goes in `model`.
   */
  api_version?: string;
  /** Deployment name by model (wire) name; a model not listed is its own deployment name. */
  deployments?: Record<string, string>;
}

/**
 * What a model can do, as declared in the config: any of core's capability fields (snake_case,
 * as in models.yaml `capabilities:`), plus the model's own wire quirks.
 */
export type CompatibleModelSpec = Partial<AdapterCapabilities> & {
  /** `emulated` when the model refuses `stop` (the adapter cuts the reply itself). */
  stop_sequences?: 'sent' | 'emulated';
  /** `false` when the model refuses `temperature` (left out with a WARN). */
  temperature?: boolean;
};

/**
 * The options of an {@link OpenAICompatibleAdapter} (`AdapterConfig.options`, the `options:`
 * of a models.yaml adapter entry): the deployment's provider key, models and quirks. A preset
 * fills in the quirks of a known service; anything given here wins over the preset. Checked at
 * construction against `OpenAICompatibleOptionsSchema`: an unknown key, or a value of the wrong
 * type or outside its set, is an `AdapterOptionError` naming `options.<field>`.
 */
export interface OpenAICompatibleOptions {
  /** Start from a known service's quirks (`groq`, `mistral`, `vllm`, `azure`, `deepseek`). */
  preset?: PresetName;
  /**
   * Canonical provider key: model ids are `<provider>:<name>` and the tool id map is keyed by
   * it. Default: the preset's key (`groq`, `mistral`, ...), else `openai-compatible`.
   */
  provider?: string;
  /** Environment variable read for the API key when the config has none. */
  api_key_env?: string;
  /** Environment variable read for the base URL when the config has none. */
  base_url_env?: string;
  /** Whether a call without an API key is refused (default true; local servers: false). */
  requires_api_key?: boolean;
  /** Capabilities by model (wire) name, over a conservative default. */
  models?: Record<string, CompatibleModelSpec>;
  /** Wire name of the model `adapter.capabilities` reports. Default: the first of `models`. */
  default_model?: string;
  /** Whether a stream sends `stream_options: { include_usage: true }`. Default true. */
  include_usage?: boolean;
  /** How the output limit is sent. Default `max_tokens` (what every compatible server takes). */
  max_tokens_field?: MaxTokensField;
  /** Where reasoning text comes back (read as unsigned thinking). Default `both`. */
  reasoning_field?: ReasoningField;
  /**
   * Whether thinking from the same model goes back in the reasoning field of its assistant
   * message (DeepSeek's thinking mode requires it after tool calls). Default false: it is
   * dropped with a WARN, never sent where the server does not take it.
   */
  reasoning_replay?: boolean;
  /**
   * Whether every assistant message with tool calls sent to a thinking model (one whose
   * capabilities say `supports_thinking`) must carry the reasoning field: its own reasoning when
   * `reasoning_replay` sends it back, else `""` (another model's turn, or a turn whose reasoning
   * was empty), with a `reasoning_filled` WARN. DeepSeek's thinking mode answers 400 without it.
   * Default false.
   */
  reasoning_required_with_tool_calls?: boolean;
  /** Message-order rules the server enforces (default none; the `mistral` preset sets all three). */
  request_order?: RequestOrderRule[];
  /** Tool call id rules (default OpenAI's: at most 40 of `[a-zA-Z0-9_-]`). */
  tool_id?: ToolIdRulesConfig;
  /** Request fields the server refuses: left out of every request with a WARN. */
  unsupported_parameters?: string[];
  /** Fields merged into every request body (`chat_template_kwargs`, `thinking`, ...). */
  extra_body?: Record<string, unknown>;
  /** Azure OpenAI: api-version and deployment names. */
  azure?: AzureOptions;
}

/** The presets {@link OpenAICompatibleOptions.preset} accepts. */
export type PresetName = 'groq' | 'mistral' | 'vllm' | 'azure' | 'deepseek';

/** A preset: a service's defaults, expressed as options, plus where its key and URL come from. */
export interface CompatiblePreset {
  /** Canonical provider key. */
  provider: string;
  /** Base URL when neither the config nor `base_url_env` gives one (none for self-hosted). */
  base_url?: string;
  /** Options the preset sets (the config's own options win). */
  options: OpenAICompatibleOptions;
}

/** The resolved quirks of one adapter (options over preset over defaults). */
export interface ResolvedQuirks {
  provider: string;
  apiKeyEnv: string;
  baseUrlEnv: string;
  defaultBaseUrl: string | undefined;
  requiresApiKey: boolean;
  models: Record<string, CompatibleModelSpec>;
  defaultModel: string | undefined;
  includeUsage: boolean;
  maxTokensField: MaxTokensField;
  reasoningField: ReasoningField;
  reasoningReplay: boolean;
  reasoningRequiredWithToolCalls: boolean;
  requestOrder: RequestOrderRule[];
  toolIdRules: ToolIdRules | undefined;
  unsupportedParameters: string[];
  extraBody: Record<string, unknown>;
  azure: AzureOptions | undefined;
  /** Whether the preset is Azure's (capabilities of unlisted models come from OpenAI's table). */
  openAIModels: boolean;
}
