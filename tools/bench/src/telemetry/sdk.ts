/**
 * An OpenTelemetry SDK as an application registers it, with in-memory exporters: a tracer
 * provider exporting every span as it ends (SimpleSpanProcessor), a meter provider with a reader,
 * and the AsyncLocalStorage context manager. `install()` and `uninstall()` switch it on and off
 * between repetitions, so one process measures both sides. `installContextManager()` registers
 * the context manager alone, already in use: the baseline of the `-warm` rows.
 */
import { context, metrics, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';

class ManualReader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

/** The registered SDK, when it is. */
export interface RegisteredSdk {
  exporter: InMemorySpanExporter;
  reader: ManualReader;
  uninstall(): Promise<void>;
}

let current: RegisteredSdk | null = null;
/** The context manager registered alone (`installContextManager`), when it is. */
let contextOnly: AsyncLocalStorageContextManager | null = null;

/**
 * Enters a context once, as an application's instrumentation does on its first request and the
 * SDK's span processor on its first export (`context.with(suppressTracing(...))`): on Node 22 the
 * AsyncLocalStorage context manager then hooks every promise of the process until it is disabled.
 */
export function enterContextOnce(): void {
  context.with(context.active(), () => undefined);
}

/**
 * Registers the AsyncLocalStorage context manager alone, in use (a context entered once), with
 * no tracer or meter provider: an application running OpenTelemetry's context manager whose
 * tracing of this library is off.
 */
export async function installContextManager(): Promise<void> {
  await uninstall();
  contextOnly = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextOnly);
  enterContextOnce();
}

/** Registers a fresh SDK (unregistering one already there). */
export async function install(): Promise<RegisteredSdk> {
  await uninstall();
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new TracerProvider({
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
  });
  trace.setGlobalTracerProvider(tracerProvider);
  const reader = new ManualReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  metrics.setGlobalMeterProvider(meterProvider);
  const registered: RegisteredSdk = {
    exporter,
    reader,
    uninstall: async () => {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
      trace.disable();
      metrics.disable();
      context.disable();
      contextManager.disable();
    },
  };
  current = registered;
  return registered;
}

/** Unregisters the SDK, if one is registered: the API is back to its no-op providers. */
export async function uninstall(): Promise<void> {
  const registered = current;
  current = null;
  await registered?.uninstall();
  if (contextOnly) {
    context.disable();
    contextOnly.disable();
    contextOnly = null;
  }
}

/** The names of the spans the registered SDK exported so far. */
export function exportedSpanNames(): string[] {
  return current?.exporter.getFinishedSpans().map((s) => s.name) ?? [];
}
