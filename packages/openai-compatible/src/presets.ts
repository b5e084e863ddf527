import type { CompatibleModelSpec, CompatiblePreset, PresetName } from './options.js';

const GROQ_TOOLS: CompatibleModelSpec = {
  supports_tools: true,
  supports_parallel_tool_calls: true,
};

/** Mistral's tool call ids: exactly nine letters and digits. */
export const MISTRAL_TOOL_ID_PATTERN = '^[a-zA-Z0-9]{9}$';

/**
 * The services the adapter knows (their documentation, November 2026). Each is only a set of
 * options: a config may override any of them.
 *
 * - `groq`: `https://api.groq.com/openai/v1`, `GROQ_API_KEY`, `max_completion_tokens`, usage
 *   requested; `openai/gpt-oss-*` reasoning arrives in `reasoning` (read as thinking, never sent
 *   back). Groq refuses `logprobs`, `logit_bias`, `top_logprobs`, `messages[].name` and `n > 1`,
 *   none of which the adapter sends.
 * - `mistral`: `https://api.mistral.ai/v1`, `MISTRAL_API_KEY`, `max_tokens`, tool call ids of
 *   exactly nine letters and digits, no `stream_options` (Mistral refuses fields it does not
 *   know, and sends usage on the last chunk anyway), and its validator's order rules: a user
 *   message first (after the system message), no user message directly after a tool message, a
 *   last assistant message marked `prefix: true`.
 * - `vllm`: self-hosted (`VLLM_BASE_URL`, e.g. `http://localhost:8000/v1`), key optional
 *   (`VLLM_API_KEY`, for `--api-key`), `max_tokens`, reasoning read from `reasoning` or the older
 *   `reasoning_content`. Models are whatever the server loaded: declare them in `models`.
 * - `azure`: Azure OpenAI, `AZURE_OPENAI_API_KEY` sent as `api-key`, `AZURE_OPENAI_ENDPOINT`,
 *   `max_completion_tokens`; with `azure.api_version` the deployments API, else the v1 API;
 *   capabilities of OpenAI models it does not list come from `@yourtool/openai`'s table.
 * - `deepseek`: `https://api.deepseek.com`, `DEEPSEEK_API_KEY`, `max_tokens`, reasoning in
 *   `reasoning_content`, sent back on the same model's assistant turns; for a thinking model
 *   (`deepseek-reasoner`) every assistant message with tool calls carries `reasoning_content`,
 *   `""` when it has none of that model's (thinking mode answers 400 otherwise).
 */
export const PRESETS: Readonly<Record<PresetName, CompatiblePreset>> = {
  groq: {
    provider: 'groq',
    base_url: 'https://api.groq.com/openai/v1',
    options: {
      api_key_env: 'GROQ_API_KEY',
      base_url_env: 'GROQ_BASE_URL',
      max_tokens_field: 'max_completion_tokens',
      include_usage: true,
      reasoning_field: 'reasoning',
      models: {
        'llama-3.3-70b-versatile': {
          ...GROQ_TOOLS,
          max_context_tokens: 131_072,
          max_output_tokens: 32_768,
        },
        'llama-3.1-8b-instant': {
          ...GROQ_TOOLS,
          max_context_tokens: 131_072,
          max_output_tokens: 131_072,
        },
        'openai/gpt-oss-120b': {
          ...GROQ_TOOLS,
          supports_thinking: true,
          supports_structured_output: true,
          max_context_tokens: 131_072,
          max_output_tokens: 65_536,
        },
      },
    },
  },
  mistral: {
    provider: 'mistral',
    base_url: 'https://api.mistral.ai/v1',
    options: {
      api_key_env: 'MISTRAL_API_KEY',
      base_url_env: 'MISTRAL_BASE_URL',
      max_tokens_field: 'max_tokens',
      include_usage: false,
      reasoning_field: 'none',
      tool_id: { pattern: MISTRAL_TOOL_ID_PATTERN, max_length: 9 },
      request_order: ['user_first', 'no_user_after_tool', 'prefix_last_assistant'],
      models: {
        'mistral-large-latest': {
          supports_tools: true,
          supports_structured_output: true,
          max_context_tokens: 131_072,
          max_output_tokens: 16_384,
        },
        'mistral-small-latest': {
          supports_tools: true,
          supports_structured_output: true,
          supports_images: true,
          max_context_tokens: 131_072,
          max_output_tokens: 16_384,
        },
      },
    },
  },
  vllm: {
    provider: 'vllm',
    options: {
      api_key_env: 'VLLM_API_KEY',
      base_url_env: 'VLLM_BASE_URL',
      requires_api_key: false,
      max_tokens_field: 'max_tokens',
      include_usage: true,
      reasoning_field: 'both',
    },
  },
  azure: {
    provider: 'azure',
    options: {
      api_key_env: 'AZURE_OPENAI_API_KEY',
      base_url_env: 'AZURE_OPENAI_ENDPOINT',
      max_tokens_field: 'max_completion_tokens',
      include_usage: true,
      reasoning_field: 'none',
    },
  },
  deepseek: {
    provider: 'deepseek',
    base_url: 'https://api.deepseek.com',
    options: {
      api_key_env: 'DEEPSEEK_API_KEY',
      base_url_env: 'DEEPSEEK_BASE_URL',
      max_tokens_field: 'max_tokens',
      include_usage: true,
      reasoning_field: 'reasoning_content',
      reasoning_replay: true,
      reasoning_required_with_tool_calls: true,
      models: {
        'deepseek-chat': {
          supports_tools: true,
          max_context_tokens: 131_072,
          max_output_tokens: 8_192,
        },
        'deepseek-reasoner': {
          supports_tools: true,
          supports_thinking: true,
          max_context_tokens: 131_072,
          max_output_tokens: 65_536,
          temperature: false,
        },
      },
    },
  },
};
