import type { AdapterError, CanonicalRequest } from '@yourtool/core';
import type { AdapterContext, WireAttempt, WireTransport } from '@yourtool/core/adapter';
import OpenAI from 'openai';
import { chatRequestBytes } from '../codec/chat-body.js';
import { toOpenAIAdapterError } from '../codec/errors.js';
import { OPENAI_STREAM_END, type OpenAIStreamItem } from '../codec/stream.js';
import { openAIStreamBody } from '../codec/stream-body.js';
import { LazyOpenAIClient } from '../sdk-client.js';
import type { ChatCompletionsEncoding, ChatCompletionsRules } from './chat-completions-rules.js';

/** A request body given as UTF-8 JSON bytes: the SDK sends it as it is, with this type. */
const JSON_BODY = { 'content-type': 'application/json' } as const;

/**
 * The transport part every Chat Completions adapter shares, on the official `openai` SDK (its
 * own retries off; core's bounded retry on): `chat.completions.create` with and without
 * `stream` (usage requested unless the encoding says the server refuses `stream_options`), and
 * the SDK's errors mapped. The client is built on the first call.
 */
export class ChatCompletionsTransport
  implements WireTransport<ChatCompletionsEncoding, OpenAI.ChatCompletion, OpenAIStreamItem>
{
  readonly #context: AdapterContext;
  readonly #rules: ChatCompletionsRules;
  readonly #client: LazyOpenAIClient;

  constructor(context: AdapterContext, rules: ChatCompletionsRules) {
    this.#context = context;
    this.#rules = rules;
    const create = rules.createClient ?? ((options) => new OpenAI(options));
    this.#client = new LazyOpenAIClient(rules.client, context, (options) => create(options));
  }

  /** A non-streaming `chat.completions.create`. */
  send(encoding: ChatCompletionsEncoding, attempt: WireAttempt): Promise<OpenAI.ChatCompletion> {
    const body = { ...encoding.params, ...encoding.extraBody, stream: false as const };
    const written = this.#written<OpenAI.ChatCompletion>(body, false, attempt.signal);
    if (written) return written;
    return this.#client.get().chat.completions.create(body, { signal: attempt.signal });
  }

  /**
   * A streaming `chat.completions.create`, usage requested unless the encoding says not to: the
   * SDK sends it and checks the status; core reads the SSE body a network read at a time and
   * the end marker follows the last chunk (decision 0147).
   */
  async open(encoding: ChatCompletionsEncoding, attempt: WireAttempt) {
    const body = {
      ...encoding.params,
      ...encoding.extraBody,
      stream: true as const,
      ...(encoding.includeUsage === false ? {} : { stream_options: { include_usage: true } }),
    };
    const response = await (
      this.#written(body, true, attempt.signal) ??
      this.#client.get().chat.completions.create(body, { signal: attempt.signal })
    ).asResponse();
    return openAIStreamBody<OpenAIStreamItem>(response, () => OPENAI_STREAM_END);
  }

  /**
   * The request sent with the body written here (decisions 0191, 0193): the SDK client's own
   * request pipeline (headers, auth, timeout, abort, status errors) with a UTF-8 JSON body it
   * sends as it is. Null when the adapter keeps no wire memory or builds its own client.
   */
  #written<Reply>(body: Record<string, unknown>, stream: boolean, signal: AbortSignal) {
    const memory = this.#rules.memory;
    if (memory === undefined || this.#rules.createClient !== undefined) return null;
    return this.#client.get().post<Reply>('/chat/completions', {
      body: chatRequestBytes(body, memory),
      headers: JSON_BODY,
      stream,
      signal,
    });
  }

  /** The SDK's errors (and OpenAI-style error bodies) as `AdapterError`s, secrets redacted. */
  toAdapterError(error: unknown, request: CanonicalRequest): AdapterError {
    return toOpenAIAdapterError(error, request.request_id, {
      provider: this.#rules.client.name,
      apiKey: this.#client.apiKey(),
      secrets: Object.values(this.#context.config.extra_headers),
      ...this.#rules.errorOptions,
    });
  }

  /**
   * Why no call can be made as configured: no API key in the config or in the provider's
   * environment variable (named, never quoted), unless the server takes none. `null` when ready.
   */
  setupProblem(): string | null {
    return this.#client.setupProblem();
  }

  /** Where calls go (telemetry's `server.address`): the client's base URL. */
  serverUrl(): string | undefined {
    return this.#client.baseUrl();
  }
}
