/**
 * @yourtool/ollama: the Ollama adapter for the yourtool canonical format.
 *
 * @packageDocumentation
 */
export {
  DEFAULT_OLLAMA_MODEL,
  OllamaAdapter,
  type OllamaAdapterConfig,
  type OllamaCallOptions,
  type OllamaConfigOptions,
  type OllamaRuntimeOptions,
} from './adapter.js';
export { DEFAULT_OLLAMA_HOST } from './client.js';
export * from './models.js';
export * from './tokens.js';
