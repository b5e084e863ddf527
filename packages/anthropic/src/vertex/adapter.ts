import type Anthropic from '@anthropic-ai/sdk';
import type { AdapterConfigInput, CallRunnerOptions } from '@yourtool/core';
import { type AdapterContext, WireAdapter, type WireParts } from '@yourtool/core/adapter';
import { type AnthropicParams, AnthropicWireMemory } from '../codec/request.js';
import { AnthropicMessagesCodec } from '../messages-codec.js';
import { claudeModelInfo } from '../models.js';
import type { AnthropicChunk } from '../transport.js';
import { VertexAnthropicConfigOptionsSchema } from './options.js';
import type { VertexAuthClient } from './sdk.js';
import { VertexAnthropicTransport } from './transport.js';

/**
 * The adapter name and provider key of Claude on Vertex AI. Its own key, so canonical ids
 * (`vertex-anthropic:claude-sonnet-4-5@20250929`) differ from first-party ones and signed
 * thinking goes back only to the model and platform that produced it (decision 0170).
 */
export const VERTEX_ANTHROPIC = 'vertex-anthropic';

/** The model whose capabilities `adapter.capabilities` reports. */
export const DEFAULT_VERTEX_ANTHROPIC_MODEL = 'vertex-anthropic:claude-sonnet-4-5@20250929';

/** Construction options of {@link VertexAnthropicAdapter} besides the config. */
export interface VertexAnthropicRuntimeOptions extends CallRunnerOptions {
  /**
   * A Google auth client to use instead of application default credentials (for example
   * `await new GoogleAuth({ scopes }).getClient()`, or impersonated credentials).
   */
  authClient?: VertexAuthClient;
  /**
   * Where the Vertex SDK is imported from. Default `@anthropic-ai/vertex-sdk`; tests name a
   * module that is not installed to see the setup error.
   */
  vertexSdkModule?: string;
}

/**
 * Claude on Google Vertex AI: the Anthropic adapter's codec, stream mapper and error mapping
 * over the Vertex SDK (`@anthropic-ai/vertex-sdk`, an optional peer dependency loaded at the
 * first call). Google application default credentials, or `runtime.authClient`, or `api_key`
 * as an OAuth access token; project and region from the options or the environment. Model
 * names as Vertex spells them (`claude-sonnet-4-5@20250929`).
 *
 * ```ts
 * const claude = new VertexAnthropicAdapter({ options: { project: 'my-project', region: 'us-east5' } });
 * const reply = await claude.complete({ request_id: newRequestId(), model: 'vertex-anthropic:claude-sonnet-4-5@20250929', messages, max_output_tokens: 1024 });
 * ```
 */
export class VertexAnthropicAdapter extends WireAdapter<
  AnthropicParams,
  Anthropic.Message,
  AnthropicChunk
> {
  /**
   * Creates an adapter; nothing is loaded or called until the first request.
   * @throws AdapterOptionError for an unknown key or a wrong type in `config.options`.
   */
  constructor(config: AdapterConfigInput = {}, runtime: VertexAnthropicRuntimeOptions = {}) {
    const { authClient, vertexSdkModule, ...callRunner } = runtime;
    super({ name: VERTEX_ANTHROPIC, label: 'Claude on Vertex AI' }, config, callRunner, (context) =>
      vertexAnthropicParts(context, { authClient, sdkModule: vertexSdkModule }),
    );
  }
}

/**
 * The parts of Claude on Vertex AI: the Anthropic Messages codec (its own wire memory), the
 * Vertex transport, and the Claude model table (Vertex's `@date` names resolve to it).
 * @throws AdapterOptionError for an unknown key or a wrong type in `config.options`.
 */
export function vertexAnthropicParts(
  context: AdapterContext,
  extra: { authClient?: VertexAuthClient | undefined; sdkModule?: string | undefined } = {},
): WireParts<AnthropicParams, Anthropic.Message, AnthropicChunk> {
  const defaults = context.parseOptions(VertexAnthropicConfigOptionsSchema, VERTEX_ANTHROPIC);
  // what the codec remembers between this adapter's requests, for the adapter's life (0165)
  const memory = new AnthropicWireMemory();
  const transport = new VertexAnthropicTransport(context, {
    provider: VERTEX_ANTHROPIC,
    defaults,
    memory,
    authClient: extra.authClient,
    sdkModule: extra.sdkModule,
  });
  return {
    codec: new AnthropicMessagesCodec(
      context,
      defaults,
      () => transport.credentialProblem(),
      memory,
    ),
    transport,
    models: {
      defaultModel: DEFAULT_VERTEX_ANTHROPIC_MODEL,
      capabilities: (wireName) => claudeModelInfo(wireName).capabilities,
    },
  };
}
