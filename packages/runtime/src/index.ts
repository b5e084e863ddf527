/**
 * @yourtool/runtime: one call from two YAML documents to a working session stack.
 *
 * @packageDocumentation
 */
export * from './config.js';
export { InvalidRuntimeOptionError } from './options.js';
export * from './runtime.js';
export * from './stderr-logger.js';
