import { type AdapterConfig, type Logger, silentLogger } from '@yourtool/core';
import {
  type AdapterContext,
  parseAdapterOptions,
  parseProviderCallOptions,
  type WireAttempt,
} from '@yourtool/core/adapter';
import { BedrockConfigOptionsSchema } from '../src/options.js';
import { BEDROCK } from '../src/provider.js';
import { BedrockTransport } from '../src/transport.js';
import type { BedrockRequest } from '../src/wire-types.js';

/**
 * A transport built the way the adapter builds it, on a context with the config's defaults
 * filled in as core's config schema fills them: for tests of the transport on its own, before
 * a codec is involved.
 */
export function transportFor(
  config: Partial<AdapterConfig>,
  logger: Logger = silentLogger,
): BedrockTransport {
  const full: AdapterConfig = {
    timeout_seconds: 600,
    idle_timeout_seconds: 60,
    max_retries: 0,
    extra_headers: {},
    options: {},
    ...config,
  };
  const context: AdapterContext = {
    name: BEDROCK,
    config: full,
    runtime: {},
    logger,
    wireName: (model) => model.replace(/^bedrock:/, ''),
    capabilityOverride: () => undefined,
    parseOptions: (schema, label) => parseAdapterOptions(schema, full.options, label ?? BEDROCK),
    parseCallOptions: (schema, options) =>
      parseProviderCallOptions(schema, options.providerOptions?.[BEDROCK], BEDROCK),
  };
  return new BedrockTransport(context, context.parseOptions(BedrockConfigOptionsSchema));
}

/** An attempt carrying only what the transport reads: the signal. */
export function attempt(signal: AbortSignal = new AbortController().signal): WireAttempt {
  return { signal, attempt: 1 } as WireAttempt;
}

/** A one-message Converse request. */
export function hello(modelId = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0'): BedrockRequest {
  return { modelId, messages: [{ role: 'user', content: [{ text: 'hi' }] }] };
}

/** A canonical request stand-in for `toAdapterError` (it reads the request id only). */
export const REQUEST = { request_id: 'req_transport_test' } as Parameters<
  BedrockTransport['toAdapterError']
>[1];

/** A Converse reply body, as Bedrock sends it. */
export function converseReply(text: string) {
  return {
    output: { message: { role: 'assistant', content: [{ text }] } },
    stopReason: 'end_turn',
    usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 },
    metrics: { latencyMs: 12 },
  };
}
