// An in-memory OpenTelemetry SDK (spans, metrics, context) for the packages' telemetry tests.
import { context, metrics, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  type DataPoint,
  type Histogram,
  MeterProvider,
  MetricReader,
} from '@opentelemetry/sdk-metrics';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  type Sampler,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';

/** A metric reader collected on demand. */
class TestMetricReader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

/** One histogram point: its attributes, count and sum. */
export interface HistogramPoint {
  attributes: Record<string, unknown>;
  count: number;
  sum: number;
}

/** One metric point as a test sees it. */
export interface MetricPoint {
  /** The meter's (instrumentation scope's) name. */
  scope: string;
  name: string;
  unit: string;
  attributes: Record<string, unknown>;
}

/** An OpenTelemetry SDK registered globally with in-memory span and metric exporters. */
export interface InstalledOtel {
  spans(): ReadableSpan[];
  /** The points of a histogram, by instrument name. */
  histogram(name: string): Promise<HistogramPoint[]>;
  /** Every metric point's instrument name, unit, meter (scope) name and attributes. */
  allMetricPoints(): Promise<MetricPoint[]>;
  uninstall(): Promise<void>;
}

/** Registers a tracer provider, a meter provider and an AsyncLocalStorage context manager. */
export function installOtel(options: { sampler?: Sampler } = {}): InstalledOtel {
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new TracerProvider({
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
    ...(options.sampler ? { sampler: options.sampler } : {}),
  });
  trace.setGlobalTracerProvider(tracerProvider);
  const reader = new TestMetricReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  metrics.setGlobalMeterProvider(meterProvider);
  const collectScopes = async () => (await reader.collect()).resourceMetrics.scopeMetrics;
  const collect = async () => (await collectScopes()).flatMap((s) => s.metrics);
  return {
    spans: () => exporter.getFinishedSpans(),
    histogram: async (name) =>
      (await collect())
        .filter((m) => m.descriptor.name === name)
        .flatMap((m) =>
          (m.dataPoints as DataPoint<Histogram>[]).map((p) => ({
            attributes: { ...p.attributes },
            count: p.value.count,
            sum: p.value.sum ?? 0,
          })),
        ),
    allMetricPoints: async () =>
      (await collectScopes()).flatMap((scope) =>
        scope.metrics.flatMap((m) =>
          (m.dataPoints as DataPoint<unknown>[]).map((p) => ({
            scope: scope.scope.name,
            name: m.descriptor.name,
            unit: m.descriptor.unit,
            attributes: { ...p.attributes },
          })),
        ),
      ),
    uninstall: async () => {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
      trace.disable();
      metrics.disable();
      context.disable();
      contextManager.disable();
    },
  };
}

/** Everything a span carries that could hold text: for "no content, no key" checks. */
export function spanText(span: ReadableSpan): string {
  return JSON.stringify({
    name: span.name,
    attributes: span.attributes,
    events: span.events.map((e) => ({ name: e.name, attributes: e.attributes })),
    status: span.status,
    links: span.links,
  });
}

/** The span's parent span id, if any. */
export function parentOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}

/** A tracer and a meter provider with in-memory exporters, registered nowhere: to hand in. */
export interface OtelProviders {
  tracerProvider: TracerProvider;
  meterProvider: MeterProvider;
  spans(): ReadableSpan[];
  /** Every metric point's name and attributes. */
  metricPoints(): Promise<Array<{ name: string; attributes: Record<string, unknown> }>>;
  shutdown(): Promise<void>;
}

/** Creates {@link OtelProviders}: nothing global is touched. */
export function createOtelProviders(): OtelProviders {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new TracerProvider({
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
  });
  const reader = new TestMetricReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  return {
    tracerProvider,
    meterProvider,
    spans: () => exporter.getFinishedSpans(),
    metricPoints: async () => {
      const { resourceMetrics } = await reader.collect();
      return resourceMetrics.scopeMetrics.flatMap((s) =>
        s.metrics.flatMap((m) =>
          (m.dataPoints as DataPoint<unknown>[]).map((p) => ({
            name: m.descriptor.name,
            attributes: { ...p.attributes },
          })),
        ),
      );
    },
    shutdown: async () => {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
}
