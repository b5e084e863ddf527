/**
 * @yourtool/core: the canonical, provider-neutral conversation format and the contract every
 * provider adapter implements.
 *
 * @packageDocumentation
 */

export * from './adapter.js';
export * from './adapter-base.js';
export * from './call-runner.js';
export * from './bus.js';
export * from './deadline.js';
export * from './decimal.js';
export * from './errors.js';
export * from './history.js';
export * from './ids.js';
export * from './json-depth.js';
export * from './logger.js';
export * from './lossy.js';
export * from './memory-store.js';
export * from './messages.js';
export * from './model-id.js';
export * from './network-errors.js';
export * from './parse.js';
export * from './redact.js';
export * from './retry.js';
export * from './schemas/adapter.js';
export * from './schemas/content.js';
export * from './schemas/message.js';
export * from './schemas/routing.js';
export * from './schemas/stream.js';
export * from './schemas/tool.js';
export * from './sealed.js';
export * from './session-store.js';
export * from './stream/accumulator.js';
export {
  type ByteSource,
  MalformedStreamError,
  type StreamFormat,
  type StreamReadOptions,
} from './stream/body.js';
export * from './stream/builder.js';
export * from './stream/invariants.js';
export * from './stream/ndjson.js';
export * from './stream/sse.js';
export * from './tokens.js';
export * from './tool-id-map.js';
export * from './tool-names.js';
export * from './tool-schema.js';
export * from './validate-message.js';
