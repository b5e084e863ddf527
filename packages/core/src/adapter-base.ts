import type { z } from 'zod';
import type { CallOptions, CallRunnerOptions, InflightCalls, ProviderAdapter } from './adapter.js';
import { AdapterFrame, wireFinishReasonOf } from './adapter-frame.js';
import type { AdapterCallSetup } from './call-shared.js';
import type { AdapterError } from './errors.js';
import type { Logger } from './logger.js';
import type {
  AdapterCapabilities,
  AdapterConfig,
  AdapterConfigInput,
  CanonicalRequest,
  CanonicalRequestInput,
  CanonicalResponse,
} from './schemas/adapter.js';
import type { Message } from './schemas/message.js';
import type { StreamEvent } from './schemas/stream.js';
import type { ToolDefinition } from './schemas/tool.js';
import { estimateRequestTokens } from './tokens.js';

/**
 * The base of a hand-written adapter: what has nothing to do with its provider (the validated
 * configuration, the logger, the in-flight registry behind `cancel(request_id)`, `close`, wire
 * names, capability overrides, the request checks, and the setup core's `runCompleteCall` /
 * `runStreamCall` need), held in the same `AdapterFrame` a `WireAdapter` holds. Extend it and
 * bring the provider: capabilities per model, `complete`, `stream`, and the error mapping. An
 * adapter over a request/reply wire protocol is simpler as a `WireAdapter` assembled from parts.
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
  protected readonly inflight: InflightCalls;
  /** The provider-neutral state, shared with `WireAdapter` as a part rather than a base class. */
  readonly #frame: AdapterFrame;

  /**
   * Validates `config`; throws `InvalidRequestError` naming each bad field, with `label` (the
   * provider's name) in the message.
   */
  protected constructor(label: string, config: AdapterConfigInput, runtime: CallRunnerOptions) {
    this.#frame = new AdapterFrame(label, () => this.name, config, runtime);
    this.config = this.#frame.config;
    this.runtime = runtime;
    this.logger = this.#frame.logger;
    this.inflight = this.#frame.inflight;
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
    this.#frame.close();
  }

  /** Whether {@link close} was called. */
  protected get closed(): boolean {
    return this.#frame.closed;
  }

  /**
   * The wire name of a model: a `wireNames` entry, else the canonical id without its
   * `<name>:` prefix. Anything else is taken as a wire name already (wire names may contain
   * `:` themselves, e.g. `qwen3:8b` or `deepseek/deepseek-v3:free`).
   */
  protected wireName(model: string): string {
    return this.#frame.wireName(model);
  }

  /** The configured override for a model (by canonical id, else wire name), if any. */
  protected capabilityOverride(
    model: string,
    wire: string,
  ): Partial<AdapterCapabilities> | undefined {
    return this.#frame.capabilityOverride(model, wire);
  }

  /**
   * The adapter's own options (`AdapterConfig.options`, snake_case as in models.yaml), checked
   * against its schema once, at construction.
   * @throws AdapterOptionError naming the first offending field (`options.<path>`).
   */
  protected parseOptions<S extends z.ZodType>(schema: S, label?: string): z.output<S> {
    return this.#frame.parseOptions(schema, label);
  }

  /**
   * This call's options for the adapter (`providerOptions[name]`, camelCase), checked against
   * its schema.
   * @throws InvalidRequestError naming the offending field (`providerOptions.<name>.<path>`).
   */
  protected parseCallOptions<S extends z.ZodType>(schema: S, options: CallOptions): z.output<S> {
    return this.#frame.parseCallOptions(schema, options);
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
    return this.#frame.checkRequest(request);
  }

  /** What `runCompleteCall` / `runStreamCall` need, with this adapter's error mapping. */
  protected callSetup(
    toAdapterError: (error: unknown, request: CanonicalRequest) => AdapterError,
  ): AdapterCallSetup {
    return this.#frame.callSetup({
      toAdapterError,
      serverUrl: () => this.serverUrl(),
      wireFinishReason: (raw) => this.wireFinishReason(raw),
    });
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
    return wireFinishReasonOf(this.name, providerRaw);
  }
}
