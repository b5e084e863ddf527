import type { z } from 'zod';
import { type CallOptions, type CallRunnerOptions, InflightCalls } from './adapter.js';
import type { AdapterCallSetup } from './call-shared.js';
import { type AdapterError, InvalidRequestError } from './errors.js';
import { type Logger, silentLogger } from './logger.js';
import { parseModelId } from './model-id.js';
import { parseAdapterOptions, parseProviderCallOptions } from './option-parse.js';
import { quickAdapterConfig } from './quick-request.js';
import {
  type AdapterCapabilities,
  type AdapterConfig,
  type AdapterConfigInput,
  AdapterConfigSchema,
  type CanonicalRequest,
} from './schemas/adapter.js';
import { type ServerAddress, serverAddressOf } from './telemetry/server.js';

/**
 * What an adapter's parts are built from: the validated configuration, the construction
 * options, the logger, and the checks every adapter makes the same way. `AdapterBase` and
 * `WireAdapter` each hold one; a `WireAdapter`'s codec, transport and models receive it.
 */
export interface AdapterContext {
  /** Adapter name and provider key. */
  readonly name: string;
  /** The validated configuration (defaults applied). */
  readonly config: AdapterConfig;
  /** The construction options. */
  readonly runtime: CallRunnerOptions;
  /** The adapter's logger (silent by default). */
  readonly logger: Logger;
  /**
   * The wire name of a model: a `wireNames` entry, else the canonical id without its
   * `<name>:` prefix; anything else is taken as a wire name already.
   */
  wireName(model: string): string;
  /** The configured capability override for a model (by canonical id, else wire name). */
  capabilityOverride(model: string, wire: string): Partial<AdapterCapabilities> | undefined;
  /**
   * The adapter's own options (`AdapterConfig.options`, snake_case), checked against `schema`.
   * @throws AdapterOptionError naming the first offending field (`options.<path>`).
   */
  parseOptions<S extends z.ZodType>(schema: S, label?: string): z.output<S>;
  /**
   * This call's options for the adapter (`providerOptions[name]`), checked against `schema`.
   * @throws InvalidRequestError naming the offending field (`providerOptions.<name>.<path>`).
   */
  parseCallOptions<S extends z.ZodType>(schema: S, options: CallOptions): z.output<S>;
}

/**
 * The provider-neutral state of one adapter: the validated configuration, logger, in-flight
 * registry, closed flag, wire names, option checks and the setup core's call runners take. A
 * part both adapter classes hold rather than a base class, so neither needs the other.
 * @internal
 */
export class AdapterFrame implements AdapterContext {
  readonly config: AdapterConfig;
  readonly runtime: CallRunnerOptions;
  readonly logger: Logger;
  /** Calls in flight, for `cancel(request_id)` and `close()`. */
  readonly inflight = new InflightCalls();
  /** The provider's name for people (`Anthropic`), in error messages. */
  readonly label: string;
  readonly #name: () => string;
  #closed = false;
  /** Where calls go, read once at the first call (`undefined` until then). */
  #server: ServerAddress | null | undefined;

  /**
   * Validates `config`; throws `InvalidRequestError` naming each bad field, with `label` in the
   * message. `name` is read when needed (a subclass of `AdapterBase` sets it after `super`).
   */
  constructor(
    label: string,
    name: () => string,
    config: AdapterConfigInput,
    runtime: CallRunnerOptions,
  ) {
    // a well-formed config is read without zod (decision 0198); the schema names what is wrong
    const quick = quickAdapterConfig(config);
    const parsed = quick
      ? { success: true as const, data: quick }
      : AdapterConfigSchema.safeParse(config);
    if (!parsed.success) {
      throw new InvalidRequestError(
        `invalid ${label} adapter config: ${parsed.error.issues
          .map((i) => `${i.path.join('.')}: ${i.message}`)
          .join('; ')}`,
        { provider: label },
      );
    }
    this.label = label;
    this.#name = name;
    this.config = parsed.data;
    this.runtime = runtime;
    this.logger = runtime.logger ?? silentLogger;
  }

  get name(): string {
    return this.#name();
  }

  /** Whether {@link close} was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Cancels in-flight calls and refuses further ones. */
  close(): void {
    this.#closed = true;
    this.inflight.cancelAll();
  }

  wireName(model: string): string {
    const mapped = this.runtime.wireNames?.[model];
    if (mapped) return mapped;
    const prefix = `${this.name}:`;
    return model.startsWith(prefix) ? model.slice(prefix.length) : model;
  }

  capabilityOverride(model: string, wire: string): Partial<AdapterCapabilities> | undefined {
    return this.runtime.capabilityOverrides?.[model] ?? this.runtime.capabilityOverrides?.[wire];
  }

  parseOptions<S extends z.ZodType>(schema: S, label = this.label): z.output<S> {
    return parseAdapterOptions(schema, this.config.options, label);
  }

  parseCallOptions<S extends z.ZodType>(schema: S, options: CallOptions): z.output<S> {
    return parseProviderCallOptions(schema, options.providerOptions?.[this.name], this.name);
  }

  /**
   * Refuses a request the adapter cannot serve before anything is sent: the adapter is closed,
   * or the model belongs to another provider. Returns the model's wire name.
   */
  checkRequest(request: CanonicalRequest): string {
    if (this.#closed) {
      throw new InvalidRequestError(`the ${this.label} adapter is closed`, {
        provider: this.name,
      });
    }
    const { provider } = parseModelId(request.model);
    if (provider !== this.name) {
      throw new InvalidRequestError(
        `model "${request.model}" is not a model of the ${this.name} adapter`,
        { provider: this.name, request_id: request.request_id },
      );
    }
    return this.wireName(request.model);
  }

  /**
   * What `runCompleteCall` / `runStreamCall` need: this adapter's error mapping, where its calls
   * go (`serverUrl`, read at the first call) and its reading of the provider's finish reason.
   */
  callSetup(adapter: {
    toAdapterError: (error: unknown, request: CanonicalRequest) => AdapterError;
    serverUrl: () => string | undefined;
    wireFinishReason: (providerRaw: Record<string, unknown>) => string | undefined;
  }): AdapterCallSetup {
    if (this.#server === undefined) this.#server = serverAddressOf(adapter.serverUrl());
    return {
      provider: this.name,
      inflight: this.inflight,
      maxRetries: this.config.max_retries,
      ...(this.runtime.retry ? { retry: this.runtime.retry } : {}),
      logger: this.logger,
      toAdapterError: adapter.toAdapterError,
      timeoutMs: this.config.timeout_seconds * 1000,
      idleTimeoutMs: this.config.idle_timeout_seconds * 1000,
      secrets: [this.config.api_key, ...Object.values(this.config.extra_headers)],
      wireName: (model) => this.wireName(model),
      server: this.#server,
      wireFinishReason: adapter.wireFinishReason,
    };
  }
}

/** Where adapters keep the provider's finish reason in `provider_raw`, in order of preference. */
const WIRE_FINISH_KEYS = [
  'finish_reason',
  'stop_reason',
  'done_reason',
  'incomplete_reason',
  'status',
] as const;

/**
 * The provider's own finish reason of a reply (`gen_ai.response.finish_reasons`), read from the
 * reply's `provider_raw` under the adapter's key: its `finish_reason`, `stop_reason`,
 * `done_reason`, `incomplete_reason` or `status`, the first one set.
 */
export function wireFinishReasonOf(
  name: string,
  providerRaw: Record<string, unknown>,
): string | undefined {
  const own = providerRaw[name];
  if (typeof own !== 'object' || own === null) return undefined;
  const raw = own as Record<string, unknown>;
  for (const key of WIRE_FINISH_KEYS) {
    const value = raw[key];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}
