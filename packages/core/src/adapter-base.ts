import { z } from 'zod';
import {
  type CallOptions,
  type CallRunnerOptions,
  InflightCalls,
  type ProviderAdapter,
} from './adapter.js';
import type { AdapterCallSetup } from './call-shared.js';
import { type AdapterError, AdapterOptionError, InvalidRequestError } from './errors.js';
import { type Logger, silentLogger } from './logger.js';
import { parseModelId } from './model-id.js';
import { unknownNameMessage } from './nearest-name.js';
import { formatPath } from './parse.js';
import {
  type AdapterCapabilities,
  type AdapterConfig,
  type AdapterConfigInput,
  AdapterConfigSchema,
  type CanonicalRequest,
  type CanonicalRequestInput,
  type CanonicalResponse,
} from './schemas/adapter.js';
import type { Message } from './schemas/message.js';
import type { StreamEvent } from './schemas/stream.js';
import type { ToolDefinition } from './schemas/tool.js';
import { type ServerAddress, serverAddressOf } from './telemetry/server.js';
import { estimateRequestTokens } from './tokens.js';

/**
 * The part of every adapter that has nothing to do with its provider: the validated
 * configuration, the logger, the in-flight registry behind `cancel(request_id)`, `close`,
 * wire names, capability overrides, the request checks, and the setup core's
 * `runCompleteCall` / `runStreamCall` need. Extend it and bring the provider: capabilities per
 * model, `complete`, `stream`, and the error mapping.
 *
 * ```ts
 * class MyAdapter extends AdapterBase {
 *   readonly name = 'my-provider';
 *   constructor(config: AdapterConfigInput = {}, runtime: CallRunnerOptions = {}) {
 *     super('my-provider', config, runtime);
 *   }
 *   protected defaultModel() { return 'my-provider:large'; }
 *   protected baseCapabilities(wireName: string) { return MY_MODELS[wireName] ?? CONSERVATIVE; }
 *   complete(request, options = {}) {
 *     return runCompleteCall(this.callSetup(toMyError), request, options, async ({ request }) => { ... });
 *   }
 *   stream(request, options = {}) { return runStreamCall(this.callSetup(toMyError), request, options, { open, onChunk }); }
 * }
 * ```
 */
export abstract class AdapterBase implements ProviderAdapter {
  /** Adapter name and provider key. */
  abstract readonly name: string;
  /** The validated configuration (defaults applied). */
  protected readonly config: AdapterConfig;
  /** The construction options. */
  protected readonly runtime: CallRunnerOptions;
  /** The adapter's logger (silent by default). */
  protected readonly logger: Logger;
  /** Calls in flight, for `cancel(request_id)` and `close()`. */
  protected readonly inflight = new InflightCalls();
  readonly #label: string;
  #closed = false;
  /** Where calls go, read once at the first call (`undefined` until then). */
  #server: ServerAddress | null | undefined;

  /**
   * Validates `config`; throws `InvalidRequestError` naming each bad field, with `label` (the
   * provider's name) in the message.
   */
  protected constructor(label: string, config: AdapterConfigInput, runtime: CallRunnerOptions) {
    const parsed = AdapterConfigSchema.safeParse(config);
    if (!parsed.success) {
      throw new InvalidRequestError(
        `invalid ${label} adapter config: ${parsed.error.issues
          .map((i) => `${i.path.join('.')}: ${i.message}`)
          .join('; ')}`,
        { provider: label },
      );
    }
    this.#label = label;
    this.config = parsed.data;
    this.runtime = runtime;
    this.logger = runtime.logger ?? silentLogger;
  }

  /** Canonical id of the model whose capabilities {@link capabilities} reports. */
  protected abstract defaultModel(): string;

  /** The capabilities the adapter declares for a model, before configured overrides. */
  protected abstract baseCapabilities(wireName: string, model: string): AdapterCapabilities;

  abstract complete(
    request: CanonicalRequestInput,
    options?: CallOptions,
  ): Promise<CanonicalResponse>;

  abstract stream(
    request: CanonicalRequestInput,
    options?: CallOptions,
  ): AsyncIterable<StreamEvent>;

  /** Capabilities of the default model. */
  get capabilities(): AdapterCapabilities {
    return this.capabilitiesFor(this.defaultModel());
  }

  /**
   * Honest capabilities of a model (canonical id or wire name): the adapter's declaration with
   * `capabilityOverrides` (by canonical id, else by wire name) on top.
   */
  capabilitiesFor(model: string): AdapterCapabilities {
    const wire = this.wireName(model);
    const base = this.baseCapabilities(wire, model);
    const override = this.capabilityOverride(model, wire);
    return override ? { ...base, ...override } : base;
  }

  /** Input-token estimate without calling the provider: core's heuristic (±10% on prose). */
  estimateInputTokens(
    messages: readonly Message[],
    tools: readonly ToolDefinition[],
    system_prompt: string | null | undefined,
  ): number {
    return estimateRequestTokens(messages, tools, system_prompt);
  }

  /** Cancels an in-flight call; `true` if one was running. */
  async cancel(request_id: string): Promise<boolean> {
    return this.inflight.cancel(request_id);
  }

  /** Cancels in-flight calls and refuses further ones. */
  async close(): Promise<void> {
    this.#closed = true;
    this.inflight.cancelAll();
  }

  /** Whether {@link close} was called. */
  protected get closed(): boolean {
    return this.#closed;
  }

  /**
   * The wire name of a model: a `wireNames` entry, else the canonical id without its
   * `<name>:` prefix. Anything else is taken as a wire name already (wire names may contain
   * `:` themselves, e.g. `qwen3:8b` or `deepseek/deepseek-v3:free`).
   */
  protected wireName(model: string): string {
    const mapped = this.runtime.wireNames?.[model];
    if (mapped) return mapped;
    const prefix = `${this.name}:`;
    return model.startsWith(prefix) ? model.slice(prefix.length) : model;
  }

  /** The configured override for a model (by canonical id, else wire name), if any. */
  protected capabilityOverride(
    model: string,
    wire: string,
  ): Partial<AdapterCapabilities> | undefined {
    return this.runtime.capabilityOverrides?.[model] ?? this.runtime.capabilityOverrides?.[wire];
  }

  /**
   * The adapter's own options (`AdapterConfig.options`, snake_case as in models.yaml), checked
   * against its schema once, at construction.
   * @throws AdapterOptionError naming the first offending field (`options.<path>`).
   */
  protected parseOptions<S extends z.ZodType>(schema: S, label = this.#label): z.output<S> {
    const parsed = schema.safeParse(this.config.options, { error: unknownOptionNames });
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0] as z.core.$ZodIssue;
    throw new AdapterOptionError(label, formatPath(issue.path, 'options'), optionProblem(issue));
  }

  /**
   * This call's options for the adapter (`providerOptions[name]`, camelCase), checked against
   * its schema.
   * @throws InvalidRequestError naming the offending field (`providerOptions.<name>.<path>`).
   */
  protected parseCallOptions<S extends z.ZodType>(schema: S, options: CallOptions): z.output<S> {
    const parsed = schema.safeParse(options.providerOptions?.[this.name] ?? {}, {
      error: unknownOptionNames,
    });
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0] as z.core.$ZodIssue;
    const path = formatPath(issue.path, `providerOptions.${this.name}`);
    throw new InvalidRequestError(`${path}: ${optionProblem(issue)}`, { provider: this.name });
  }

  /** @deprecated Unchecked: use {@link parseOptions} with the adapter's schema. */
  protected configOptions<T>(): T {
    return this.config.options as T;
  }

  /** @deprecated Unchecked: use {@link parseCallOptions} with the adapter's schema. */
  protected callOptions<T>(options: CallOptions): T {
    return (options.providerOptions?.[this.name] ?? {}) as T;
  }

  /**
   * Refuses a request the adapter cannot serve before anything is sent: the adapter is closed,
   * or the model belongs to another provider. Returns the model's wire name.
   */
  protected checkRequest(request: CanonicalRequest): string {
    if (this.#closed) {
      throw new InvalidRequestError(`the ${this.#label} adapter is closed`, {
        provider: this.name,
      });
    }
    const { provider } = parseModelId(request.model);
    if (provider !== this.name) {
      throw new InvalidRequestError(
        `model "${request.model}" is not a model of the ${this.name} adapter`,
        {
          provider: this.name,
          request_id: request.request_id,
        },
      );
    }
    return this.wireName(request.model);
  }

  /** What `runCompleteCall` / `runStreamCall` need, with this adapter's error mapping. */
  protected callSetup(
    toAdapterError: (error: unknown, request: CanonicalRequest) => AdapterError,
  ): AdapterCallSetup {
    return {
      provider: this.name,
      inflight: this.inflight,
      maxRetries: this.config.max_retries,
      ...(this.runtime.retry ? { retry: this.runtime.retry } : {}),
      logger: this.logger,
      toAdapterError,
      timeoutMs: this.config.timeout_seconds * 1000,
      idleTimeoutMs: this.config.idle_timeout_seconds * 1000,
      secrets: [this.config.api_key, ...Object.values(this.config.extra_headers)],
      wireName: (model) => this.wireName(model),
      server: this.#serverAddress(),
      wireFinishReason: (raw) => this.wireFinishReason(raw),
    };
  }

  /** Where calls go, read from {@link serverUrl} at the first call. */
  #serverAddress(): ServerAddress | null {
    if (this.#server === undefined) this.#server = serverAddressOf(this.serverUrl());
    return this.#server;
  }

  /**
   * The base URL calls go to, for the `server.address` and `server.port` of their telemetry:
   * `base_url` by default. Adapters whose SDK has a default host (or reads one from the
   * environment) return what the SDK uses.
   */
  protected serverUrl(): string | undefined {
    return this.config.base_url ?? undefined;
  }

  /**
   * The provider's own finish reason of a reply (`gen_ai.response.finish_reasons`), read from
   * the reply's `provider_raw` under this adapter's key: its `finish_reason`, `stop_reason`,
   * `done_reason`, `incomplete_reason` or `status`, the first one set. Adapters that keep it
   * elsewhere override this.
   */
  protected wireFinishReason(providerRaw: Record<string, unknown>): string | undefined {
    const own = providerRaw[this.name];
    if (typeof own !== 'object' || own === null) return undefined;
    const raw = own as Record<string, unknown>;
    for (const key of WIRE_FINISH_KEYS) {
      const value = raw[key];
      if (typeof value === 'string' && value !== '') return value;
    }
    return undefined;
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
 * The message of an unknown option: each key with the nearest one its object knows
 * (`unknown option "reasoning_efort"; did you mean "reasoning_effort"?`). An error map, since
 * only it sees the object schema that refused the key.
 */
const unknownOptionNames: z.core.$ZodErrorMap = (issue) => {
  if (issue.code !== 'unrecognized_keys') return undefined;
  const known =
    issue.inst instanceof z.core.$ZodObject ? Object.keys(issue.inst._zod.def.shape) : [];
  return unknownNameMessage('option', issue.keys, known);
};

/** An option issue for people: what was expected, never the value itself (it may be a key). */
function optionProblem(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type') return `expected ${issue.expected}`;
  return issue.message;
}
