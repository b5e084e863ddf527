import type { AdapterConfigInput, CallRunnerOptions } from '@yourtool/core';
import { type AdapterContext, WireAdapter, type WireParts } from '@yourtool/core/adapter';
import { BedrockConverseCodec } from './converse-codec.js';
import { bedrockModelInfo } from './models.js';
import { BedrockConfigOptionsSchema } from './options.js';
import { BEDROCK } from './provider.js';
import { BedrockTransport } from './transport.js';
import type { BedrockChunk, BedrockReply, BedrockRequest } from './wire-types.js';

/**
 * The model whose capabilities `adapter.capabilities` reports: Claude Sonnet 4.5 through the
 * global cross-Region inference profile (served from any commercial Region, priced as
 * Anthropic's list).
 */
export const DEFAULT_BEDROCK_MODEL = 'bedrock:global.anthropic.claude-sonnet-4-5-20250929-v1:0';

/** Construction options of {@link BedrockAdapter} besides the config (core's, unchanged). */
export type BedrockRuntimeOptions = CallRunnerOptions;

/**
 * The Amazon Bedrock adapter (Converse and ConverseStream), on the official
 * `@aws-sdk/client-bedrock-runtime` (its own retries off; core's bounded retry on). A
 * `WireAdapter` assembled from {@link bedrockParts}. Model ids read `bedrock:<Bedrock model id>`:
 * a foundation model id, a cross-Region inference profile (`us.`, `eu.`, `apac.`, `global.`) or
 * an ARN; each model's family (Claude, Llama, Mistral, Nova, gpt-oss, DeepSeek, ...) decides its
 * request rules.
 *
 * Credentials: `api_key` is a Bedrock API key (sent as a bearer token); without one the AWS
 * SDK's default chain runs (`AWS_BEARER_TOKEN_BEDROCK`, environment keys, the shared config and
 * SSO profile `options.profile` or `AWS_PROFILE`, web identity, container and instance roles).
 * The Region is `options.region`, else `AWS_REGION`, else the profile's. `base_url` replaces the
 * Region's endpoint. `runtime.fetch` is not used: the SDK sends through Node's `http2` / `http`.
 *
 * ```ts
 * const bedrock = new BedrockAdapter({ options: { region: 'us-east-1' } });
 * const reply = await bedrock.complete({ request_id: newRequestId(), model: DEFAULT_BEDROCK_MODEL, messages, max_output_tokens: 1024 });
 * ```
 */
export class BedrockAdapter extends WireAdapter<BedrockRequest, BedrockReply, BedrockChunk> {
  /**
   * Creates an adapter from its config (see the class notes for credentials and Region).
   * @throws AdapterOptionError for an unknown key or a wrong type in `config.options`.
   */
  constructor(config: AdapterConfigInput = {}, runtime: BedrockRuntimeOptions = {}) {
    super({ name: BEDROCK, label: 'Amazon Bedrock' }, config, runtime, bedrockParts);
  }
}

/**
 * The Bedrock adapter's parts, from its validated config: the Converse codec, the SDK
 * transport, and the Bedrock model table (see `BEDROCK_MODELS`; models no row names get their
 * family's fallback, the family taken from `options.families` first).
 * @throws AdapterOptionError for an unknown key or a wrong type in `config.options`.
 */
export function bedrockParts(
  context: AdapterContext,
): WireParts<BedrockRequest, BedrockReply, BedrockChunk> {
  const defaults = context.parseOptions(BedrockConfigOptionsSchema, BEDROCK);
  const transport = new BedrockTransport(context, defaults);
  return {
    codec: new BedrockConverseCodec(context, defaults, () => transport.setupProblem()),
    transport,
    models: {
      defaultModel: DEFAULT_BEDROCK_MODEL,
      capabilities: (wireName) => bedrockModelInfo(wireName, defaults.families).capabilities,
    },
  };
}
