import type { AdapterConfigInput, CallRunnerOptions } from '@yourtool/core';
import { type AdapterContext, WireAdapter, type WireParts } from '@yourtool/core/adapter';
import type OpenAI from 'openai';
import { OPENAI } from './codec/request.js';
import type { OpenAIStreamItem } from './codec/stream.js';
import {
  DEFAULT_OPENAI_MODEL,
  openAIChatCompletionsParts,
} from './openai-chat-completions-adapter.js';
import { openAIResponsesParts } from './openai-responses-adapter.js';
import { type OpenAIApi, OpenAIConfigOptionsSchema } from './options.js';
import type { OpenAIResponsesEncoding } from './responses/request.js';
import type { OpenAIResponsesStreamEvent } from './responses/stream.js';
import type { ChatCompletionsEncoding } from './wire/chat-completions-rules.js';

export { DEFAULT_OPENAI_MODEL };

/** Construction options of {@link OpenAIAdapter} besides the config. */
export type OpenAIRuntimeOptions = CallRunnerOptions;

/** A request of either OpenAI API, as encoded. */
export type OpenAIWireRequest = ChatCompletionsEncoding | OpenAIResponsesEncoding;
/** A whole reply of either OpenAI API. */
export type OpenAIWireReply = OpenAI.ChatCompletion | OpenAI.Responses.Response;
/** A stream chunk of either OpenAI API. */
export type OpenAIWireChunk = OpenAIStreamItem | OpenAIResponsesStreamEvent;

/**
 * The OpenAI adapter, on the official `openai` SDK (its own retries off; core's bounded retry
 * on), assembled at construction from the parts of the API `options.api` names: those of
 * {@link OpenAIChatCompletionsAdapter} (`chat_completions`, the default) or of
 * `OpenAIResponsesAdapter` (`responses`).
 *
 * ```ts
 * const gpt = new OpenAIAdapter({ api_key: process.env.OPENAI_API_KEY });
 * const reply = await gpt.complete({ request_id: newRequestId(), model: 'openai:gpt-5', messages, max_output_tokens: 1024 });
 * ```
 */
export class OpenAIAdapter extends WireAdapter<
  OpenAIWireRequest,
  OpenAIWireReply,
  OpenAIWireChunk
> {
  /** The API this adapter calls (`options.api`). */
  readonly api: OpenAIApi;

  /**
   * Creates an adapter. `api_key` defaults to `OPENAI_API_KEY` and `base_url` to
   * `OPENAI_BASE_URL` (else `https://api.openai.com/v1`).
   * @throws AdapterOptionError naming an option that is unknown or of the wrong type (an
   * `options.api` other than `chat_completions` or `responses`, a `reasoning_effort` OpenAI does
   * not know, ...).
   */
  constructor(config: AdapterConfigInput = {}, runtime: OpenAIRuntimeOptions = {}) {
    let api: OpenAIApi = 'chat_completions';
    super({ name: OPENAI }, config, runtime, (context) => {
      api = context.parseOptions(OpenAIConfigOptionsSchema).api ?? 'chat_completions';
      return openAIParts(context, api);
    });
    this.api = api;
  }
}

/**
 * The parts of the OpenAI API `api` names. One wire's parts stand for the union: the adapter
 * hands each part only what that part produced (its own encoding, reply and chunks).
 */
function openAIParts(
  context: AdapterContext,
  api: OpenAIApi,
): WireParts<OpenAIWireRequest, OpenAIWireReply, OpenAIWireChunk> {
  const parts =
    api === 'responses' ? openAIResponsesParts(context) : openAIChatCompletionsParts(context);
  return parts as unknown as WireParts<OpenAIWireRequest, OpenAIWireReply, OpenAIWireChunk>;
}
