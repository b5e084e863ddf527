/**
 * @yourtool/core/adapter: the toolkit adapters are built with: AdapterBase and the call runners
 * (deadlines, bounded retry, cancellation, the stream contract), StreamBuilder, history
 * preparation, lossy-projection logging, redaction, transport-failure classification, SSE and
 * NDJSON readers, token estimates, provider-safe tool names, each sealed message's remembered
 * wire form, folds remembered over a history's sealed prefix, and the OpenTelemetry bridge (the
 * call span every call runner opens; spans and GenAI attributes for the packages above core).
 *
 * @packageDocumentation
 */

export { InflightCalls, normalizeRequest } from './adapter.js';
export * from './adapter-base.js';
export type { AdapterContext } from './adapter-frame.js';
export { runCompleteCall } from './call-complete.js';
export type { AdapterCallSetup, CallAttemptContext, StreamCallSpec } from './call-shared.js';
export { runStreamCall } from './call-stream.js';
export * from './complete-object.js';
export * from './deadline.js';
export { classifyHttpStatus, createAdapterError, parseRetryAfter } from './errors.js';
export * from './history.js';
export * from './history-repairs.js';
export * from './json-depth.js';
export { builtSchema, emptyOutputOf, type LazySchemaOptions, lazySchema } from './lazy-schema.js';
export * from './lossy.js';
export * from './network-errors.js';
export { parseAdapterOptions, parseProviderCallOptions } from './option-parse.js';
export * from './output-nulls.js';
export { isResolvedOutputSchema } from './output-schema.js';
export * from './output-wrapper.js';
export * from './redact.js';
export * from './retry.js';
export type { MessageStartEvent } from './schemas/stream.js';
export * from './sealed-prefix.js';
export * from './stream/accumulator.js';
export {
  type ByteSource,
  MalformedStreamError,
  type StreamFormat,
  type StreamReadOptions,
} from './stream/body.js';
export * from './stream/builder.js';
export {
  DEFAULT_MAX_RECORD_CHARS,
  type FrameSink,
  NdjsonFramer,
  parseNdjsonLine,
  parseSseData,
  SseFramer,
} from './stream/frames.js';
export { type JsonStringRead, readJsonIndex, readJsonString } from './stream/json-string.js';
export * from './stream/ndjson.js';
export * from './stream/sse.js';
export { isWireBody, STREAM_DONE, type WireBody } from './stream/wire-body.js';
export * from './structured-output-plan.js';
export * from './structured-output-read.js';
export {
  ATTR as GENAI_ATTRIBUTES,
  errorTypeOf,
  GENAI_SEMCONV_VERSION,
  genAiProviderName,
  providerModelName,
  type TelemetryAttributes,
  type TelemetryAttributeValue,
  YOURTOOL_ATTR as YOURTOOL_ATTRIBUTES,
} from './telemetry/attributes.js';
export {
  inputMessagesJson,
  outputMessagesJson,
  toolCallValueJson,
  toolResultJson,
} from './telemetry/content.js';
export { getTelemetry, type LibraryTelemetry } from './telemetry/library.js';
export type { CallEnd, CallTelemetryOptions } from './telemetry/options.js';
export { type ServerAddress, serverAddressOf } from './telemetry/server.js';
export type {
  SpanStart,
  TelemetryContext,
  TelemetryMeterProvider,
  TelemetrySpan,
  TelemetryTracerProvider,
} from './telemetry/spans.js';
export * from './tokens.js';
export * from './tool-choice.js';
export * from './tool-names.js';
export * from './wire-adapter.js';
export * from './wire-forms.js';
export * from './wire-parts.js';
