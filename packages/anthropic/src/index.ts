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
export {
  DEFAULT_VERTEX_ANTHROPIC_MODEL,
  VERTEX_ANTHROPIC,
  VertexAnthropicAdapter,
  type VertexAnthropicRuntimeOptions,
} from './vertex/adapter.js';
export type { VertexAnthropicConfigOptions } from './vertex/options.js';
export { VERTEX_SDK_PACKAGE, type VertexAuthClient, VertexSdkMissingError } from './vertex/sdk.js';
