/**
 * @yourtool/openrouter: the OpenRouter adapter for the yourtool canonical format.
 *
 * @packageDocumentation
 */
export {
  DEFAULT_OPENROUTER_MODEL,
  OPENROUTER_BASE_URL,
  OpenRouterAdapter,
  type OpenRouterRuntimeOptions,
} from './adapter.js';
export * from './models.js';
export * from './options.js';
