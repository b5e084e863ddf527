import {
  type AdapterConfig,
  AuthError,
  type CallRunnerOptions,
  type CanonicalRequest,
  type ContentBlock,
  type Logger,
  type TokenUsage,
} from '@yourtool/core';
import {
  estimateBlockTokens,
  estimateRequestTokens,
  redactError,
  redactSecrets,
} from '@yourtool/core/adapter';
import type OpenAI from 'openai';

/** What an adapter on the `openai` SDK builds its client from, besides the config. */
export interface OpenAIClientSettings {
  /** Adapter name and provider key (`openai`, `openrouter`, `groq`, ...). */
  name: string;
  /** Environment variable the API key is read from when the config has none. */
  apiKeyEnv: string;
  /** Environment variable the base URL is read from when the config has none. */
  baseUrlEnv: string;
  /** Base URL when neither the config nor the environment names one. */
  defaultBaseUrl: string;
  /** Headers sent with every request, before `extra_headers`. */
  defaultHeaders?: Record<string, string>;
  /** `organization` and `project` headers (OpenAI only). */
  organization?: string | null;
  project?: string | null;
  /**
   * `required` (default): a call without an API key fails with `AuthError` before anything is
   * sent. `optional`: servers that take none (a local vLLM, llama.cpp or LM Studio) are called
   * without an `Authorization` header when no key is configured.
   */
  apiKey?: 'required' | 'optional';
}

/** What the SDK client is built from. */
export type OpenAIClientOptions = NonNullable<ConstructorParameters<typeof OpenAI>[0]>;

/**
 * The SDK client of one adapter, built on first use from its settings and config (its own
 * retries off: core's bounded retry runs instead), with the key and secret lookups the adapter's
 * setup check and error redaction share.
 */
export class LazyOpenAIClient {
  readonly #settings: OpenAIClientSettings;
  readonly #config: AdapterConfig;
  readonly #runtime: CallRunnerOptions;
  readonly #logger: Logger;
  readonly #create: (options: OpenAIClientOptions) => OpenAI;
  #client: OpenAI | undefined;

  /** `create` builds the client from the options worked out here (an adapter's `createClient`). */
  constructor(
    settings: OpenAIClientSettings,
    adapter: { config: AdapterConfig; runtime: CallRunnerOptions; logger: Logger },
    create: (options: OpenAIClientOptions) => OpenAI,
  ) {
    this.#settings = settings;
    this.#config = adapter.config;
    this.#runtime = adapter.runtime;
    this.#logger = adapter.logger;
    this.#create = create;
  }

  /** The API key: the config's, else the settings' environment variable. */
  apiKey(): string | undefined {
    return this.#config.api_key ?? process.env[this.#settings.apiKeyEnv] ?? undefined;
  }

  /** The base URL the client sends to: the config's, else the environment's, else the default. */
  baseUrl(): string | undefined {
    const settings = this.#settings;
    return this.#config.base_url ?? process.env[settings.baseUrlEnv] ?? settings.defaultBaseUrl;
  }

  /** What is redacted from errors and SDK log lines: the API key and custom header values. */
  secrets(): Array<string | undefined> {
    return [this.apiKey(), ...Object.values(this.#config.extra_headers)];
  }

  /** Why no call can be made as configured (no key where one is required); `null` when ready. */
  setupProblem(): string | null {
    if (this.apiKey() || this.#settings.apiKey === 'optional') return null;
    return noApiKeyReason(this.#settings.name, this.#settings.apiKeyEnv);
  }

  /** The client, built on the first call. Throws `AuthError` when a required key is missing. */
  get(): OpenAI {
    if (this.#client) return this.#client;
    const settings = this.#settings;
    const apiKey = this.apiKey();
    const keyless = !apiKey && settings.apiKey === 'optional';
    if (!apiKey && !keyless) {
      throw new AuthError(noApiKeyReason(settings.name, settings.apiKeyEnv), {
        provider: settings.name,
      });
    }
    this.#client = this.#create({
      // the SDK insists on a key; a keyless server gets none: the header is removed below
      apiKey: apiKey ?? 'no-key',
      baseURL: this.baseUrl(),
      organization: settings.organization ?? null,
      project: settings.project ?? null,
      maxRetries: 0,
      timeout: this.#config.timeout_seconds * 1000,
      defaultHeaders: {
        ...settings.defaultHeaders,
        ...this.#config.extra_headers,
        ...(keyless ? { authorization: null } : {}),
      },
      // The SDK's own warnings go to the adapter's logger (redacted), never to the console.
      logger: sdkLogger(this.#logger, settings.name, () => this.secrets()),
      logLevel: 'warn',
      ...(this.#runtime.fetch ? { fetch: this.#runtime.fetch } : {}),
    });
    return this.#client;
  }
}

/** Why an adapter without a key cannot call: names where a key is looked for, never a value. */
export function noApiKeyReason(adapter: string, apiKeyEnv: string): string {
  return `${adapter}: no API key (set api_key in the config or the ${apiKeyEnv} environment variable)`;
}

/** The SDK's `logger` option: each line to `logger` as `sdk_log`, secrets redacted. */
export function sdkLogger(
  logger: Logger,
  adapter: string,
  secrets: () => ReadonlyArray<string | undefined>,
) {
  const write =
    (level: 'error' | 'warn' | 'info' | 'debug') =>
    (message: string, ...details: unknown[]): void => {
      const list = secrets();
      const entry: Record<string, unknown> = {
        event: 'sdk_log',
        adapter,
        sdk_level: level,
        ...(details.length > 0 ? { details: details.map((d) => redactError(d, list)) } : {}),
      };
      const text = redactSecrets(String(message), list);
      (level === 'warn' ? logger.warn : (logger[level] ?? logger.warn)).call(logger, entry, text);
    };
  return { error: write('error'), warn: write('warn'), info: write('info'), debug: write('debug') };
}

/** Local token counts for a stream the provider sent no usage for: core's heuristic. */
export function estimatedCounts(
  request: CanonicalRequest,
  content: readonly ContentBlock[],
): Omit<TokenUsage, 'estimated'> {
  return {
    input_tokens: estimateRequestTokens(request.messages, request.tools, request.system_prompt),
    output_tokens: content.reduce((sum, block) => sum + estimateBlockTokens(block), 0),
    cached_input_tokens: 0,
    cache_creation_input_tokens: 0,
  };
}
