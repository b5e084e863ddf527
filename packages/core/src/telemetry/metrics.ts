/**
 * The GenAI client metrics: `gen_ai.client.token.usage`, `gen_ai.client.operation.duration`
 * and `gen_ai.client.operation.time_to_first_chunk` histograms, with the conventions' bucket
 * boundaries as advice. Created once per registered meter provider; none when the global meter
 * provider is the API's no-op one (nothing registered), so nothing is built then.
 */
import type { Histogram, Meter } from '@opentelemetry/api';
import type { OtelApi } from './api.js';
import { CORE_SCOPE, DURATION_BUCKETS, METRIC, TOKEN_BUCKETS } from './attributes.js';
import type { TelemetryMeterProvider } from './spans.js';

/** The client instruments of one meter provider. */
export interface ClientInstruments {
  tokenUsage: Histogram;
  operationDuration: Histogram;
  timeToFirstChunk: Histogram;
}

let cached: { provider: unknown; instruments: ClientInstruments | null } | undefined;
/** The instruments of meter providers handed in by callers (`telemetry.meterProvider`). */
const given = new WeakMap<TelemetryMeterProvider, ClientInstruments | null>();

/**
 * The instruments of `provider` when given, else of the registered meter provider; null when
 * none is registered.
 */
export function clientInstruments(
  api: OtelApi,
  provider?: TelemetryMeterProvider,
): ClientInstruments | null {
  if (provider) {
    let instruments = given.get(provider);
    if (instruments === undefined) {
      instruments = instrumentsOf(api, provider.getMeter(CORE_SCOPE) as Meter);
      given.set(provider, instruments);
    }
    return instruments;
  }
  const registered = api.metrics.getMeterProvider();
  if (cached?.provider === registered) return cached.instruments;
  const instruments = instrumentsOf(api, registered.getMeter(CORE_SCOPE));
  cached = { provider: registered, instruments };
  return instruments;
}

function instrumentsOf(api: OtelApi, meter: Meter): ClientInstruments | null {
  if (meter === api.createNoopMeter()) return null;
  return {
    tokenUsage: meter.createHistogram(METRIC.tokenUsage, {
      description: 'Number of input and output tokens used.',
      unit: '{token}',
      valueType: api.ValueType.INT,
      advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
    }),
    operationDuration: meter.createHistogram(METRIC.operationDuration, {
      description: 'GenAI operation duration.',
      unit: 's',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    }),
    timeToFirstChunk: meter.createHistogram(METRIC.timeToFirstChunk, {
      description:
        'Time to receive the first chunk, measured from when the client issues the generation request to when the first chunk is received in the response stream.',
      unit: 's',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    }),
  };
}
