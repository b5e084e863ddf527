import type { AdapterConfigInput, CallRunnerOptions } from '@yourtool/core';
import { type AdapterContext, WireAdapter, type WireParts } from '@yourtool/core/adapter';
import OpenAI from 'openai';
import { OPENAI } from './codec/request.js';
import { openAIResponsesModelInfo } from './models.js';
import { OpenAIConfigOptionsSchema } from './options.js';
import type { OpenAIResponsesEncoding } from './responses/request.js';
import type { OpenAIResponsesStreamEvent } from './responses/stream.js';
import { OpenAIResponsesWireMemory } from './responses/wire-memory.js';
import { LazyOpenAIClient } from './sdk-client.js';
import { OpenAIResponsesCodec } from './wire/responses-codec.js';
import { OpenAIResponsesTransport } from './wire/responses-transport.js';

/** The model whose capabilities `adapter.capabilities` reports. */
export const DEFAULT_OPENAI_RESPONSES_MODEL = 'openai:gpt-5';

/** Construction options of {@link OpenAIResponsesAdapter} besides the config (core's). */
export type OpenAIResponsesRuntimeOptions = CallRunnerOptions;

/** The OpenAI Responses adapter's parts: the request, reply and chunk types of that wire. */
export type OpenAIResponsesParts = WireParts<
  OpenAIResponsesEncoding,
  OpenAI.Responses.Response,
  OpenAIResponsesStreamEvent
>;

/**
 * The OpenAI adapter on the Responses API (`POST /responses`), a `WireAdapter` on the
 * official `openai` SDK (its own retries off; core's bounded retry on). Provider key `openai`,
 * like `OpenAIAdapter`'s Chat Completions transport, so canonical ids (`openai:gpt-5`), tool id
 * maps and prices are the same. Stateless: every request sends the whole history with
 * `store: false`; models that reason return their reasoning encrypted
 * (`include: ["reasoning.encrypted_content"]`), kept in thinking blocks and replayed to the same
 * model only (decisions 0126, 0127). Its options are `OpenAIAdapter`'s, checked at construction.
 *
 * ```ts
 * const gpt = new OpenAIResponsesAdapter({ api_key: process.env.OPENAI_API_KEY });
 * const reply = await gpt.complete({ request_id: newRequestId(), model: 'openai:gpt-5', messages, max_output_tokens: 1024 });
 * ```
 */
export class OpenAIResponsesAdapter extends WireAdapter<
  OpenAIResponsesEncoding,
  OpenAI.Responses.Response,
  OpenAIResponsesStreamEvent
> {
  /**
   * Creates an adapter. `api_key` defaults to `OPENAI_API_KEY` and `base_url` to
   * `OPENAI_BASE_URL` (else `https://api.openai.com/v1`). The SDK client is built on first use.
   * @throws AdapterOptionError naming an option that is unknown or of the wrong type.
   */
  constructor(config: AdapterConfigInput = {}, runtime: OpenAIResponsesRuntimeOptions = {}) {
    super({ name: OPENAI }, config, runtime, openAIResponsesParts);
  }
}

/**
 * The OpenAI Responses parts: one SDK client (built on first use) shared by the Responses codec
 * and transport, and the GPT model table as the Responses API serves it.
 * @throws AdapterOptionError naming an option that is unknown or of the wrong type.
 */
export function openAIResponsesParts(context: AdapterContext): OpenAIResponsesParts {
  const options = context.parseOptions(OpenAIConfigOptionsSchema);
  const client = new LazyOpenAIClient(
    {
      name: OPENAI,
      apiKeyEnv: 'OPENAI_API_KEY',
      baseUrlEnv: 'OPENAI_BASE_URL',
      defaultBaseUrl: 'https://api.openai.com/v1',
      organization: options.organization ?? null,
      project: options.project ?? null,
    },
    context,
    (clientOptions) => new OpenAI(clientOptions),
  );
  // the adapter's wire memory (decisions 0165, 0193): the codec fills it, the transport reads it
  const memory = new OpenAIResponsesWireMemory();
  const headerSecrets = Object.values(context.config.extra_headers);
  return {
    codec: new OpenAIResponsesCodec(context, options, () => client.secrets(), memory),
    transport: new OpenAIResponsesTransport(client, headerSecrets, memory),
    models: {
      defaultModel: DEFAULT_OPENAI_RESPONSES_MODEL,
      capabilities: (wireName) => openAIResponsesModelInfo(wireName).capabilities,
    },
  };
}
