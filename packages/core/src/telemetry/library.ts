/**
 * The library's OpenTelemetry bridge for the packages above core (the session's turn, tool and
 * compaction spans): spans through the optional API, typed without it.
 */
import { captureContentFromEnv, type OtelApi, otelApi } from './api.js';
import {
  type SpanStart,
  startSpan,
  type TelemetrySpan,
  type TelemetryTracerProvider,
  tracingActive,
} from './spans.js';

/** Spans of the library's packages, over the OpenTelemetry API once it is loaded. */
export interface LibraryTelemetry {
  /**
   * Starts a span of the `scope` tracer (a package name), or returns `null` when no tracer
   * provider is registered: then build nothing.
   */
  startSpan(scope: string, name: string, start?: SpanStart): TelemetrySpan | null;
  /** Whether spans of `scope` would go to `tracerProvider` or a registered tracer provider. */
  tracing(scope: string, tracerProvider?: TelemetryTracerProvider): boolean;
  /**
   * Whether message content is recorded: `option` when given, else the environment variable
   * `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT` (`true` or `1`).
   */
  captureContent(option?: boolean): boolean;
}

let bridge: { api: OtelApi; telemetry: LibraryTelemetry } | undefined;

function bridgeOf(api: OtelApi): LibraryTelemetry {
  if (bridge?.api === api) return bridge.telemetry;
  const telemetry: LibraryTelemetry = {
    startSpan: (scope, name, start) => startSpan(api, scope, name, start),
    tracing: (scope, tracerProvider) => tracingActive(api, scope, tracerProvider),
    captureContent: (option) => option ?? captureContentFromEnv(),
  };
  bridge = { api, telemetry };
  return telemetry;
}

/**
 * The library's telemetry: `null` when `@opentelemetry/api` is not installed; a promise only
 * the first time the API is loaded in the process (await it then). Never rejects.
 */
export function getTelemetry(): LibraryTelemetry | null | Promise<LibraryTelemetry | null> {
  const api = otelApi();
  if (api === null) return null;
  if (api instanceof Promise) return api.then((loaded) => (loaded ? bridgeOf(loaded) : null));
  return bridgeOf(api);
}
