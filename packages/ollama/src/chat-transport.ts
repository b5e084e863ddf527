import type { AdapterError, CanonicalRequest } from '@yourtool/core';
import type { AdapterContext, WireAttempt, WireBody, WireTransport } from '@yourtool/core/adapter';
import type { ChatResponse } from 'ollama';
import { warnIfPromptTooLong } from './call-checks.js';
import type { OllamaCallPlan } from './chat-codec.js';
import {
  createOllamaCallTransport,
  type OllamaCallTransport,
  type OllamaTransportSettings,
} from './client.js';
import { type OllamaErrorContext, toOllamaAdapterError } from './codec/errors.js';
import {
  type OllamaChatParams,
  OllamaWireMemory,
  ollamaChatRequestBody,
  toOllamaChatRequest,
} from './codec/request.js';
import { ollamaReadError, ollamaStreamBody } from './codec/stream-body.js';
import { ollamaCredentialProblem } from './credentials.js';
import type { OllamaModelCatalog } from './detection.js';
import type { OllamaModels } from './ollama-models.js';
import type { OllamaDefaults } from './options.js';

/** What the Ollama transport is built from besides the adapter's context. */
export interface OllamaChatTransportParts {
  /** The adapter's checked `config.options`. */
  defaults: OllamaDefaults;
  /** Host, headers, timeout and fetch of every call's client. */
  settings: OllamaTransportSettings;
  /** What is redacted from errors: the API key and the `extra_headers` values. */
  secrets: readonly string[];
  /** The `/api/show` cache, read before a model's first call. */
  catalog: OllamaModelCatalog;
  /** The models part: capabilities and the token estimate of a call. */
  models: OllamaModels;
}

/**
 * The Ollama adapter's transport: `/api/chat` on the official `ollama` client, a client per
 * attempt (cancelling one call must close only its connection), the model's capabilities read
 * from `/api/show` before its first call, and every failure mapped by the codec's errors.
 */
export class OllamaChatTransport
  implements WireTransport<OllamaCallPlan, ChatResponse, ChatResponse>
{
  readonly #context: AdapterContext;
  readonly #parts: OllamaChatTransportParts;
  /**
   * What the codec remembers of sent messages (decision 0195): owned here, the one part that
   * encodes requests, for the adapter's lifetime.
   */
  readonly #memory = new OllamaWireMemory();

  constructor(context: AdapterContext, parts: OllamaChatTransportParts) {
    this.#context = context;
    this.#parts = parts;
  }

  /** A non-streaming `/api/chat` call, on a client of its own. */
  async send(plan: OllamaCallPlan, attempt: WireAttempt): Promise<ChatResponse> {
    const transport = createOllamaCallTransport(this.#parts.settings, attempt.signal);
    try {
      const params = await this.#params(plan, attempt);
      const body = ollamaChatRequestBody({ ...params, stream: false }, this.#memory);
      return (await transport.chat(body, { model: params.model, stream: false })) as ChatResponse;
    } catch (error) {
      throw this.#toError(error, attempt.request, transport);
    }
  }

  /**
   * A streaming `/api/chat` call, on a client of its own: the client sends the request and
   * checks the status; core reads the NDJSON body a network read at a time, each line parsed
   * once by `ollamaStreamBody` (an unparseable one an error), and every failure while reading
   * it goes through {@link toAdapterError} (no async step per line; decision 0147).
   */
  async open(plan: OllamaCallPlan, attempt: WireAttempt): Promise<WireBody<ChatResponse>> {
    const transport = createOllamaCallTransport(this.#parts.settings, attempt.signal, {
      stream: true,
    });
    try {
      const params = await this.#params(plan, attempt);
      const body = ollamaChatRequestBody({ ...params, stream: true }, this.#memory);
      await transport.chat(body, { model: params.model, stream: true });
      return ollamaStreamBody(transport.body());
    } catch (error) {
      throw this.#toError(error, attempt.request, transport);
    }
  }

  /**
   * The codec's error mapping (no response headers: those only the attempt's transport has),
   * also for what failed while core read a streamed body: core's `MalformedStreamError` for a
   * line is the adapter's own malformed-line error (`ollamaReadError`).
   */
  toAdapterError(error: unknown, request: CanonicalRequest): AdapterError {
    return toOllamaAdapterError(ollamaReadError(error), {
      ...this.errorContext(),
      request_id: request.request_id,
      model: this.#context.wireName(request.model),
    });
  }

  /**
   * Why no call can be made as configured, or null. A local or self-hosted Ollama server needs
   * no key, so this is null unless the host is ollama.com, which refuses calls without one:
   * then `api_key` in the config, `OLLAMA_API_KEY` in the environment (which the ollama client
   * sends there) or an `Authorization` header in `extra_headers` must be set.
   */
  setupProblem(): string | null {
    return ollamaCredentialProblem(this.#parts.settings.host, this.#context.config);
  }

  /** Where calls go (telemetry's `server.address`): the host, `http://` when it names no scheme. */
  serverUrl(): string {
    const host = this.#parts.settings.host;
    return host.includes('://') ? host : `http://${host}`;
  }

  /** Host, key and secrets, for every error the adapter maps. */
  errorContext(): Omit<OllamaErrorContext, 'request_id'> {
    return {
      host: this.#parts.settings.host,
      apiKey: this.#context.config.api_key,
      secrets: this.#parts.secrets,
    };
  }

  /**
   * The chat parameters of an attempt: the model's capabilities read first when they were not
   * yet (a failed read is a WARN, and the call goes on with what is known).
   */
  async #params(plan: OllamaCallPlan, attempt: WireAttempt): Promise<OllamaChatParams> {
    const { request, logger, toolIdMap, signal } = attempt;
    const { wireName } = plan;
    const { defaults, catalog, models } = this.#parts;
    if (defaults.detectCapabilities !== false && !catalog.has(wireName)) {
      await catalog.detectForCall(wireName, { request_id: request.request_id, logger, signal });
    }
    const capabilities = models.overridden(request.model, this.#context.wireName(request.model));
    plan.numCtx = capabilities.max_context_tokens;
    const estimate = models.estimateInputTokens(
      request.messages,
      request.tools,
      request.system_prompt,
    );
    warnIfPromptTooLong(request, { estimate, numCtx: plan.numCtx, wireName }, logger);
    const { truncate, shift } = defaults;
    return toOllamaChatRequest(request, {
      toolIdMap,
      historyMemo: attempt.historyMemo,
      wireMemory: this.#memory,
      logger,
      capabilities,
      options: {
        wireName,
        numCtx: plan.numCtx,
        ...(plan.think === undefined ? {} : { think: plan.think }),
        ...(plan.keepAlive === undefined ? {} : { keepAlive: plan.keepAlive }),
        ...(truncate === undefined ? {} : { truncate }),
        ...(shift === undefined ? {} : { shift }),
        modelStop: catalog.get(wireName)?.stop ?? [],
        modelOptions: plan.modelOptions,
      },
    }).params;
  }

  #toError(
    error: unknown,
    request: CanonicalRequest,
    transport: OllamaCallTransport,
  ): AdapterError {
    return toOllamaAdapterError(error, {
      ...this.errorContext(),
      request_id: request.request_id,
      model: this.#context.wireName(request.model),
      headers: transport.lastHeaders(),
    });
  }
}
