import type { AdapterCapabilities, AdapterConfigInput } from '@yourtool/core';
import { type AdapterContext, WireAdapter, type WireParts } from '@yourtool/core/adapter';
import type { ChatResponse } from 'ollama';
import { type OllamaCallPlan, OllamaChatCodec } from './chat-codec.js';
import { OllamaChatTransport } from './chat-transport.js';
import { DEFAULT_OLLAMA_HOST, type OllamaTransportSettings } from './client.js';
import { OLLAMA } from './codec/request.js';
import { OllamaModelCatalog } from './detection.js';
import type { OllamaModelInfo } from './models.js';
import { OllamaModels } from './ollama-models.js';
import {
  type OllamaAdapterConfig,
  OllamaConfigOptionsSchema,
  type OllamaDefaults,
  type OllamaRuntimeOptions,
} from './options.js';

export type { OllamaCallPlan } from './chat-codec.js';
export { DEFAULT_OLLAMA_MODEL } from './ollama-models.js';
export type {
  OllamaAdapterConfig,
  OllamaCallOptions,
  OllamaConfigOptions,
  OllamaRuntimeOptions,
} from './options.js';

const NEVER_ABORTED = new AbortController().signal;

/** The Ollama adapter's parts, with what its own methods read besides them. */
export interface OllamaParts extends WireParts<OllamaCallPlan, ChatResponse, ChatResponse> {
  /** The adapter's checked `config.options`. */
  defaults: OllamaDefaults;
  /** The Ollama server the adapter talks to. */
  host: string;
  /** The `/api/show` cache. */
  catalog: OllamaModelCatalog;
}

/**
 * The Ollama adapter, on the official `ollama` client (`/api/chat`, NDJSON streaming). Local
 * models differ: each model's capabilities come from `/api/show` (read on the first call to it,
 * or up front with {@link OllamaAdapter.detectCapabilities}), with configuration overrides on
 * top; before that they are conservative. Tool calls get canonical ids (Ollama issues none);
 * usage comes from `prompt_eval_count` / `eval_count`; cost is the pricing package's explicit
 * zero. A `WireAdapter` assembled from {@link ollamaParts}: each attempt gets its own client (cancelling one call must close only
 * its connection), and a streamed body is read by core, a network read at a time.
 *
 * ```ts
 * const ollama = new OllamaAdapter({ base_url: 'http://127.0.0.1:11434' });
 * await ollama.detectCapabilities('ollama:qwen3:8b');
 * const reply = await ollama.complete({ request_id: newRequestId(), model: 'ollama:qwen3:8b', messages, max_output_tokens: 512 });
 * ```
 */
export class OllamaAdapter extends WireAdapter<OllamaCallPlan, ChatResponse, ChatResponse> {
  /** The Ollama server this adapter talks to. */
  readonly host: string;
  readonly #defaults: OllamaDefaults;
  readonly #catalog: OllamaModelCatalog;

  /**
   * Creates an adapter. `base_url` defaults to the `OLLAMA_HOST` environment variable, else
   * `http://127.0.0.1:11434`. `api_key` is only needed behind an authenticating proxy or for
   * ollama.com (sent as `Authorization: Bearer`).
   * @throws AdapterOptionError for an unknown key, a wrong type or a value out of range in
   *   `config.options`.
   */
  constructor(config: OllamaAdapterConfig = {}, runtime: OllamaRuntimeOptions = {}) {
    let parts: OllamaParts | undefined;
    super({ name: OLLAMA, label: 'Ollama' }, config as AdapterConfigInput, runtime, (context) => {
      parts = ollamaParts(context);
      return parts;
    });
    const built = parts as OllamaParts;
    this.host = built.host;
    this.#defaults = built.defaults;
    this.#catalog = built.catalog;
  }

  /**
   * Reads a model's capabilities from `/api/show` (once; later calls use the cache) and returns
   * them. Call it at startup for the models you route to: `capabilitiesFor` is synchronous and
   * conservative until a model was detected. Fails with an `AdapterError` (e.g. a
   * `NetworkError` when Ollama is not running, an `InvalidRequestError` for a model that is not
   * pulled).
   */
  async detectCapabilities(
    model: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<AdapterCapabilities> {
    const wire = this.context.wireName(model);
    if (!this.#catalog.has(wire)) await this.#catalog.detect(wire, options.signal ?? NEVER_ABORTED);
    return this.capabilitiesFor(model);
  }

  /** Like {@link detectCapabilities}, but always asks `/api/show` again (after `ollama pull`). */
  async refreshCapabilities(
    model: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<AdapterCapabilities> {
    const wire = this.context.wireName(model);
    this.#catalog.forget(wire);
    await this.#catalog.detect(wire, options.signal ?? NEVER_ABORTED);
    return this.capabilitiesFor(model);
  }

  /**
   * Whether `/api/show` was read for `model`: `false` means {@link capabilitiesFor} still
   * reports conservative defaults (with `capabilityOverrides` applied). Always `true` with the
   * `detect_capabilities: false` option, which says the configured capabilities are final. The
   * router's `prepare()` detects every model for which this is `false`.
   */
  capabilitiesDetected(model: string): boolean {
    if (this.#defaults.detectCapabilities === false) return true;
    return this.#catalog.has(this.context.wireName(model));
  }

  /** What `/api/show` said about a model, if it was read. */
  modelInfo(model: string): OllamaModelInfo | undefined {
    return this.#catalog.get(this.context.wireName(model));
  }
}

/**
 * The Ollama adapter's parts, from its validated config: the chat codec, the `/api/chat`
 * transport, and the models part over the `/api/show` cache.
 * @throws AdapterOptionError for an unknown key, a wrong type or a value out of range in
 *   `config.options`.
 */
export function ollamaParts(context: AdapterContext): OllamaParts {
  const { config, runtime } = context;
  const defaults = context.parseOptions(OllamaConfigOptionsSchema, OLLAMA);
  const apiKey = config.api_key;
  const settings: OllamaTransportSettings = {
    host: config.base_url ?? process.env.OLLAMA_HOST ?? DEFAULT_OLLAMA_HOST,
    headers: {
      ...config.extra_headers,
      ...(apiKey ? { Authorization: `Bearer ${apiKey}` } : {}),
    },
    timeoutMs: config.timeout_seconds * 1000,
    ...(runtime.fetch ? { fetch: runtime.fetch } : {}),
  };
  const envKey = process.env.OLLAMA_API_KEY;
  const secrets = [
    ...(apiKey ? [apiKey] : []),
    // the ollama client sends it to ollama.com on its own
    ...(envKey ? [envKey] : []),
    ...Object.values(config.extra_headers ?? {}),
  ];
  const catalog = new OllamaModelCatalog({
    transport: settings,
    logger: context.logger,
    errorContext: { host: settings.host, apiKey, secrets },
  });
  const models = new OllamaModels(context, defaults, catalog);
  return {
    codec: new OllamaChatCodec(context, defaults, models),
    transport: new OllamaChatTransport(context, { defaults, settings, secrets, catalog, models }),
    models,
    defaults,
    host: settings.host,
    catalog,
  };
}
