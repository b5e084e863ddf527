/**
 * Spans through the OpenTelemetry API, as the call runner and the session use them. When no
 * tracer provider is registered, {@link startSpan} returns `null` before anything is built; a
 * span the SDK does not record (sampled out) still carries its context, so the spans under it
 * follow the same decision, but its owner skips building attributes (`recording` is false).
 */
import type { Context, Span, Tracer } from '@opentelemetry/api';
import type { OtelApi } from './api.js';
import {
  ATTR,
  definedAttributes,
  type TelemetryAttributes,
  type TelemetryAttributeValue,
} from './attributes.js';

/**
 * An OpenTelemetry `Context` (from `@opentelemetry/api`), opaque to the library's types so
 * that its declarations do not need the API installed: pass `context.active()` or a context
 * holding your span to start the library's spans under it.
 */
export type TelemetryContext = object;

/**
 * An OpenTelemetry tracer provider (`TracerProvider` of `@opentelemetry/api`, e.g. the SDK's),
 * typed by the one method the library calls so that its declarations do not need the API.
 */
export interface TelemetryTracerProvider {
  /** Returns the tracer of an instrumentation scope. */
  getTracer(name: string, version?: string): object;
}

/**
 * An OpenTelemetry meter provider (`MeterProvider` of `@opentelemetry/api`, e.g. the SDK's),
 * typed by the one method the library calls.
 */
export interface TelemetryMeterProvider {
  /** Returns the meter of an instrumentation scope. */
  getMeter(name: string, version?: string): object;
}

/** How a span is started. */
export interface SpanStart {
  /** Span kind: `client` for a call to a provider, `internal` (default) for in-process work. */
  kind?: 'client' | 'internal';
  /** The context the span starts in; default the active context. */
  parent?: TelemetryContext | null | undefined;
  /** The tracer provider to use instead of the globally registered one. */
  tracerProvider?: TelemetryTracerProvider | undefined;
  /** Attributes known at the start (read by samplers); built only when a tracer is registered. */
  attributes?: () => TelemetryAttributes;
}

/** A span of the library. Every method is safe on a span that does not record. */
export interface TelemetrySpan {
  /** Whether the span records: build attribute values only when it does. */
  readonly recording: boolean;
  /** The context with this span as the active one: the parent of the spans started under it. */
  readonly context: TelemetryContext;
  /** Sets attributes (those `undefined` are left out). */
  setAttributes(attributes: TelemetryAttributes): void;
  /** Adds an event. */
  addEvent(name: string, attributes?: TelemetryAttributes): void;
  /**
   * Marks the span failed: `error.type` and status `ERROR`, described by `description` (an
   * error class or code, never a message that might quote content).
   */
  fail(errorType: string, description?: string): void;
  /** Ends the span (once; later calls do nothing). */
  end(): void;
  /** Runs `fn` with this span active, so spans of instrumented libraries nest under it. */
  run<T>(fn: () => T): T;
}

/**
 * The tracer for `scope`: of the given provider, else of the registered one, or null when no
 * tracer provider is registered.
 */
function tracerOf(api: OtelApi, scope: string, given?: TelemetryTracerProvider): Tracer | null {
  if (given) return given.getTracer(scope) as Tracer;
  const provider = api.trace.getTracerProvider() as ReturnType<
    OtelApi['trace']['getTracerProvider']
  > & { getDelegateTracer?: (name: string) => Tracer | undefined };
  // the API's proxy provider answers without allocating when nothing is registered behind it
  if (typeof provider.getDelegateTracer === 'function') {
    return provider.getDelegateTracer(scope) ?? null;
  }
  return provider.getTracer(scope);
}

/** Whether spans of `scope` would go to `given` or a registered tracer provider. */
export function tracingActive(
  api: OtelApi,
  scope: string,
  given?: TelemetryTracerProvider,
): boolean {
  return given !== undefined || tracerOf(api, scope) !== null;
}

class LibrarySpan implements TelemetrySpan {
  readonly recording: boolean;
  readonly context: Context;
  readonly #api: OtelApi;
  readonly #span: Span;
  #ended = false;

  constructor(api: OtelApi, span: Span, parent: Context) {
    this.#api = api;
    this.#span = span;
    this.recording = span.isRecording();
    this.context = api.trace.setSpan(parent, span);
  }

  setAttributes(attributes: TelemetryAttributes): void {
    if (this.recording) this.#span.setAttributes(definedAttributes(attributes));
  }

  addEvent(name: string, attributes?: TelemetryAttributes): void {
    if (this.recording) this.#span.addEvent(name, attributes && definedAttributes(attributes));
  }

  fail(errorType: string, description?: string): void {
    if (!this.recording) return;
    this.#span.setAttribute(ATTR.errorType, errorType);
    this.#span.setStatus({
      code: this.#api.SpanStatusCode.ERROR,
      message: description ?? errorType,
    });
  }

  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#span.end();
  }

  run<T>(fn: () => T): T {
    return this.#api.context.with(this.context, fn);
  }
}

/**
 * Starts a span of the `scope` tracer, or returns `null` when no tracer provider is registered
 * (then nothing is allocated and the attributes are not built).
 */
export function startSpan(
  api: OtelApi,
  scope: string,
  name: string,
  start: SpanStart = {},
): TelemetrySpan | null {
  const tracer = tracerOf(api, scope, start.tracerProvider);
  if (!tracer) return null;
  const parent = (start.parent as Context | null | undefined) ?? api.context.active();
  const attributes = start.attributes ? definedAttributes(start.attributes()) : undefined;
  const span = tracer.startSpan(
    name,
    {
      kind: start.kind === 'client' ? api.SpanKind.CLIENT : api.SpanKind.INTERNAL,
      ...(attributes ? { attributes } : {}),
    },
    parent,
  );
  return new LibrarySpan(api, span, parent);
}

export type { TelemetryAttributes, TelemetryAttributeValue };
