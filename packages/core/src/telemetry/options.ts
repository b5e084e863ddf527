import type { AdapterError } from '../errors.js';
import type { StopReason, TokenUsage } from '../schemas/adapter.js';
import type { TelemetryAttributes } from './attributes.js';
import type { TelemetryContext, TelemetryMeterProvider, TelemetryTracerProvider } from './spans.js';

/** How a model call ended, as the call span's {@link CallTelemetryOptions.onEnd} hook sees it. */
export interface CallEnd {
  /** The reply's token usage, or `null` when the call failed before the provider reported any. */
  usage: TokenUsage | null;
  /** The model that answered, as a canonical id, when the provider named it. */
  served_model: string | null;
  /** Why the reply stopped; `null` when the call failed before any event. */
  stop_reason: StopReason | null;
  /** The call's latency in ms (the reply's `latency_ms` when there is one). */
  latency_ms: number;
  /** The failure that ended the call, if one did. */
  error: AdapterError | null;
}

/**
 * Per-call OpenTelemetry options (`CallOptions.telemetry`). Without any, a call still gets its
 * span (`chat {model}`, under the active context) and its metric points whenever an
 * OpenTelemetry SDK is registered; nothing is recorded when none is.
 */
export interface CallTelemetryOptions {
  /**
   * Record message content on the call span (`gen_ai.input.messages`, `gen_ai.output.messages`,
   * `gen_ai.system_instructions`, `gen_ai.tool.definitions`). Default: the environment variable
   * `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT` (`true`), else off.
   */
  captureContent?: boolean;
  /** The OpenTelemetry `Context` the call span starts in (its parent); default the active one. */
  parent?: TelemetryContext | null;
  /**
   * The tracer provider of the call span (an OpenTelemetry SDK `TracerProvider`); default the
   * globally registered one.
   */
  tracerProvider?: TelemetryTracerProvider;
  /**
   * The meter provider of the call's client metrics (an OpenTelemetry SDK `MeterProvider`);
   * default the globally registered one.
   */
  meterProvider?: TelemetryMeterProvider;
  /** Attributes added to the call span at its start. */
  attributes?: TelemetryAttributes;
  /**
   * Called once when the call ends, only while its span records: attributes to add before the
   * span ends (the session adds the call's exact cost). A hook that throws is ignored.
   */
  onEnd?: (end: CallEnd) => TelemetryAttributes | undefined;
}
