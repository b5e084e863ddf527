/**
 * @yourtool/google: the Gemini adapter for the yourtool canonical format.
 *
 * @packageDocumentation
 */
export {
  DEFAULT_GOOGLE_MODEL,
  GoogleAdapter,
  type GoogleCallOptions,
  type GoogleConfigOptions,
  type GoogleRuntimeOptions,
} from './adapter.js';
export * from './models.js';
