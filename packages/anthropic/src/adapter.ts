import type Anthropic from '@anthropic-ai/sdk';
import type { AdapterConfigInput, CallRunnerOptions } from '@yourtool/core';
import { type AdapterContext, WireAdapter, type WireParts } from '@yourtool/core/adapter';
import { ANTHROPIC, type AnthropicParams, AnthropicWireMemory } from './codec/request.js';
import { AnthropicMessagesCodec } from './messages-codec.js';
import { claudeModelInfo } from './models.js';
import { AnthropicConfigOptionsSchema } from './options.js';
import { type AnthropicChunk, AnthropicTransport } from './transport.js';

export type { AnthropicCallOptions, AnthropicConfigOptions } from './options.js';

/** The model whose capabilities `adapter.capabilities` reports. */
export const DEFAULT_ANTHROPIC_MODEL = 'anthropic:claude-sonnet-4-6';

/** Construction options of {@link AnthropicAdapter} besides the config (core's, unchanged). */
export type AnthropicRuntimeOptions = CallRunnerOptions;

/**
 * The Anthropic Messages API adapter, on the official `@anthropic-ai/sdk` (its own retries
 * off; core's bounded retry on). A `WireAdapter` assembled from {@link anthropicParts}: the
 * request is encoded by the codec's `toAnthropicParams`, sent through the SDK client, and the
 * reply decoded by `fromAnthropicMessage` (streamed: `createAnthropicStreamMapper`).
 *
 * ```ts
 * const claude = new AnthropicAdapter({ api_key: process.env.ANTHROPIC_API_KEY });
 * const reply = await claude.complete({ request_id: newRequestId(), model: 'anthropic:claude-sonnet-4-6', messages, max_output_tokens: 1024 });
 * ```
 */
export class AnthropicAdapter extends WireAdapter<
  AnthropicParams,
  Anthropic.Message,
  AnthropicChunk
> {
  /**
   * Creates an adapter. `api_key` defaults to the `ANTHROPIC_API_KEY` environment variable.
   * @throws AdapterOptionError for an unknown key or a wrong type in `config.options`.
   */
  constructor(config: AdapterConfigInput = {}, runtime: AnthropicRuntimeOptions = {}) {
    super({ name: ANTHROPIC, label: 'Anthropic' }, config, runtime, anthropicParts);
  }
}

/**
 * The Anthropic adapter's parts, from its validated config: the Messages codec, the SDK
 * transport, and the Claude model table (see `CLAUDE_MODELS`).
 * @throws AdapterOptionError for an unknown key or a wrong type in `config.options`.
 */
export function anthropicParts(
  context: AdapterContext,
): WireParts<AnthropicParams, Anthropic.Message, AnthropicChunk> {
  const defaults = context.parseOptions(AnthropicConfigOptionsSchema, ANTHROPIC);
  // what the codec remembers between this adapter's requests, for the adapter's life (0165)
  const memory = new AnthropicWireMemory();
  const transport = new AnthropicTransport(context, defaults.anthropicVersion, memory);
  return {
    codec: new AnthropicMessagesCodec(context, defaults, () => transport.setupProblem(), memory),
    transport,
    models: {
      defaultModel: DEFAULT_ANTHROPIC_MODEL,
      capabilities: (wireName) => claudeModelInfo(wireName).capabilities,
    },
  };
}
