/**
 * `@yourtool/ai-sdk/adapter`: any AI SDK language model (specification v2, v3 or v4) as this
 * project's `ProviderAdapter`, without the UI message stream's imports.
 *
 * @packageDocumentation
 */
export { AiSdkAdapter, type AiSdkAdapterOptions } from './ai-sdk-adapter.js';
export { toAdapterError as aiSdkErrorToAdapterError } from './errors.js';
export { RAW_KEY as AI_SDK_RAW_KEY, type RoundTrip } from './round-trip.js';
export { type AnyLanguageModel, stopReasonFromAiSdk, usageFromAiSdk } from './spec.js';
export { type WireRules, wireRulesFor } from './wire-rules.js';
