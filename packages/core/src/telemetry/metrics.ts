/**
 * The GenAI client metrics: `gen_ai.client.token.usage`, `gen_ai.client.operation.duration`
 * and `gen_ai.client.operation.time_to_first_chunk` histograms, with the conventions' bucket
 * boundaries as advice. Created once per registered meter provider; none when the global meter
 * provider is the API's no-op one (nothing registered), so nothing is built then.
 */
import type { Histogram } from '@opentelemetry/api';
import type { OtelApi } from './api.js';
import { CORE_SCOPE, DURATION_BUCKETS, METRIC, TOKEN_BUCKETS } from './attributes.js';

/** The client instruments of one meter provider. */
export interface ClientInstruments {
  tokenUsage: Histogram;
  operationDuration: Histogram;
  timeToFirstChunk: Histogram;
}

let cached: { provider: unknown; instruments: ClientInstruments | null } | undefined;

/** The instruments of the registered meter provider, or null when none is registered. */
export function clientInstruments(api: OtelApi): ClientInstruments | null {
  const provider = api.metrics.getMeterProvider();
  if (cached?.provider === provider) return cached.instruments;
  const meter = provider.getMeter(CORE_SCOPE);
  const instruments =
    meter === api.createNoopMeter()
      ? null
      : {
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
  cached = { provider, instruments };
  return instruments;
}
