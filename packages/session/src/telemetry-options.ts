import type { TelemetryMeterProvider, TelemetryTracerProvider } from '@yourtool/core/adapter';

/** OpenTelemetry options of a {@link SessionManager} (`SessionManagerOptions.telemetry`). */
export interface SessionTelemetryOptions {
  /**
   * Record message content: the messages and replies of every call, the turn's user input and
   * final reply, tool arguments and results. Default: the environment variable
   * `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT` (`true`), else off. Keys never are.
   */
  captureContent?: boolean;
  /** `gen_ai.agent.name` of the turn spans, which are then named `invoke_agent {name}`. */
  agentName?: string;
  /**
   * The tracer provider of the turn, tool, compaction and call spans (an OpenTelemetry SDK
   * `TracerProvider`), instead of the globally registered one.
   */
  tracerProvider?: TelemetryTracerProvider;
  /**
   * The meter provider of the calls' client metrics (an OpenTelemetry SDK `MeterProvider`),
   * instead of the globally registered one.
   */
  meterProvider?: TelemetryMeterProvider;
}

/** What is known of the turn's model when its span starts: an explicit choice or the session's. */
export interface TurnModel {
  /** The model's canonical id (`provider:name`). */
  model: string;
  /** Its adapter's name, when the registry knows the model. */
  adapter?: string;
  /** Its wire name, when the registry knows the model. */
  wireName?: string;
}

/** How a tool use ended, as its `execute_tool` span reports it (`error.type` unless `ok`). */
export type ToolOutcome =
  | 'ok'
  | 'unknown_tool'
  | 'invalid_input'
  | 'refused'
  | 'not_run'
  | 'cancelled'
  | 'failed';
