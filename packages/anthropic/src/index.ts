/**
 * @yourtool/anthropic: the Anthropic adapter for the yourtool canonical format.
 *
 * @packageDocumentation
 */
export {
  AnthropicAdapter,
  type AnthropicCallOptions,
  type AnthropicConfigOptions,
  type AnthropicRuntimeOptions,
  DEFAULT_ANTHROPIC_MODEL,
} from './adapter.js';
export type { AnthropicRequestOptions, AnthropicThinkingOption } from './codec/request.js';
export * from './models.js';
