import type {
  AdapterCapabilities,
  AdapterConfigInput,
  CallOptions,
  CallRunnerOptions,
  CanonicalRequestInput,
  CanonicalResponse,
  StreamEvent,
} from '@yourtool/core';
import { AdapterBase } from '@yourtool/core/adapter';
import { OPENAI } from './codec/request.js';
import { openAIModelInfo, openAIResponsesModelInfo } from './models.js';
import { DEFAULT_OPENAI_MODEL, OpenAIChatCompletionsAdapter } from './openai-chat-adapter.js';
import { type OpenAIApi, OpenAIConfigOptionsSchema } from './options.js';
import { OpenAIResponsesAdapter } from './responses/adapter.js';

export { DEFAULT_OPENAI_MODEL };

/** Construction options of {@link OpenAIAdapter} besides the config. */
export type OpenAIRuntimeOptions = CallRunnerOptions;

/**
 * The OpenAI adapter, on the official `openai` SDK (its own retries off; core's bounded retry
 * on): a front over one of two transports, chosen by `options.api` at construction: an
 * {@link OpenAIChatCompletionsAdapter} (`chat_completions`, the default) or an
 * {@link OpenAIResponsesAdapter} (`responses`), each built from the same config. Every call,
 * `cancel` and `close` go to that transport.
 *
 * ```ts
 * const gpt = new OpenAIAdapter({ api_key: process.env.OPENAI_API_KEY });
 * const reply = await gpt.complete({ request_id: newRequestId(), model: 'openai:gpt-5', messages, max_output_tokens: 1024 });
 * ```
 */
export class OpenAIAdapter extends AdapterBase {
  /** Adapter name and provider key. */
  readonly name = OPENAI;
  /** The API this adapter calls (`options.api`). */
  readonly api: OpenAIApi;
  readonly #transport: OpenAIChatCompletionsAdapter | OpenAIResponsesAdapter;

  /**
   * Creates an adapter. `api_key` defaults to `OPENAI_API_KEY` and `base_url` to
   * `OPENAI_BASE_URL` (else `https://api.openai.com/v1`).
   * @throws AdapterOptionError naming an option that is unknown or of the wrong type (an
   * `options.api` other than `chat_completions` or `responses`, a `reasoning_effort` OpenAI does
   * not know, ...).
   */
  constructor(config: AdapterConfigInput = {}, runtime: OpenAIRuntimeOptions = {}) {
    super(OPENAI, config, runtime);
    this.api = this.parseOptions(OpenAIConfigOptionsSchema).api ?? 'chat_completions';
    this.#transport =
      this.api === 'responses'
        ? new OpenAIResponsesAdapter(config, runtime)
        : new OpenAIChatCompletionsAdapter(config, runtime);
  }

  protected defaultModel(): string {
    return DEFAULT_OPENAI_MODEL;
  }

  /**
   * Capabilities from the GPT model table (unknown models get conservative ones), as the
   * configured API serves them: through the Responses API, models that reason support thinking.
   */
  protected baseCapabilities(wireName: string): AdapterCapabilities {
    return this.api === 'responses'
      ? openAIResponsesModelInfo(wireName).capabilities
      : openAIModelInfo(wireName).capabilities;
  }

  /** A non-streaming call through the configured API. */
  complete(request: CanonicalRequestInput, options?: CallOptions): Promise<CanonicalResponse> {
    return this.#transport.complete(request, options);
  }

  /** A streaming call through the configured API, as canonical events. */
  stream(request: CanonicalRequestInput, options?: CallOptions): AsyncIterable<StreamEvent> {
    return this.#transport.stream(request, options);
  }

  /** The transport's estimate (core's heuristic, within ±5% of o200k; decision 0044). */
  override estimateInputTokens(...args: Parameters<AdapterBase['estimateInputTokens']>): number {
    return this.#transport.estimateInputTokens(...args);
  }

  /** Cancels an in-flight call; `true` if one was running. */
  override cancel(request_id: string): Promise<boolean> {
    return this.#transport.cancel(request_id);
  }

  /** Cancels in-flight calls and refuses further ones. */
  override async close(): Promise<void> {
    await super.close();
    await this.#transport.close();
  }

  /**
   * Why no call can be made as configured: no key in `api_key` or `OPENAI_API_KEY` (the text
   * names both, never a key). `null` when ready.
   */
  setupProblem(): string | null {
    return this.#transport.setupProblem();
  }
}
