import type { AdapterError, Logger } from '@yourtool/core';
import { createOllamaCallTransport, type OllamaTransportSettings } from './client.js';
import { type OllamaErrorContext, toOllamaAdapterError } from './codec/errors.js';
import { OLLAMA } from './codec/request.js';
import { normalizeOllamaModelName, type OllamaModelInfo, parseOllamaShow } from './models.js';

/** What {@link OllamaModelCatalog} needs from its adapter. */
export interface OllamaCatalogSettings {
  /** The transport every call's client shares. */
  transport: OllamaTransportSettings;
  /** The adapter's logger, for models that cannot chat. */
  logger: Logger;
  /** The error context of a detection (host, key and secrets to redact). */
  errorContext: Omit<OllamaErrorContext, 'request_id' | 'model' | 'headers'>;
}

/**
 * What `/api/show` said about each model, by normalized name (`qwen3` and `qwen3:latest` are
 * one model): read once per model, with concurrent reads of one model sharing one request.
 */
export class OllamaModelCatalog {
  readonly #settings: OllamaCatalogSettings;
  readonly #detected = new Map<string, OllamaModelInfo>();
  readonly #detecting = new Map<string, Promise<OllamaModelInfo>>();

  /** A catalog reading models through `settings.transport`. */
  constructor(settings: OllamaCatalogSettings) {
    this.#settings = settings;
  }

  /** What `/api/show` said about a model (wire name), if it was read. */
  get(wire: string): OllamaModelInfo | undefined {
    return this.#detected.get(normalizeOllamaModelName(wire));
  }

  /** Whether `/api/show` was read for a model (wire name). */
  has(wire: string): boolean {
    return this.#detected.has(normalizeOllamaModelName(wire));
  }

  /** Forgets what was read about a model, so the next {@link detect} asks again. */
  forget(wire: string): void {
    this.#detected.delete(normalizeOllamaModelName(wire));
  }

  /**
   * Reads a model's `/api/show` (joining a read of the same model already under way) and keeps
   * it. Fails with an `AdapterError` (a `NetworkError` when Ollama is not running, an
   * `InvalidRequestError` for a model that is not pulled).
   */
  async detect(wire: string, signal: AbortSignal): Promise<OllamaModelInfo> {
    const key = normalizeOllamaModelName(wire);
    const pending = this.#detecting.get(key);
    if (pending) return pending;
    const detection = this.#read(wire, key, signal);
    this.#detecting.set(key, detection);
    try {
      return await detection;
    } finally {
      this.#detecting.delete(key);
    }
  }

  /**
   * Detection on first use by a call. A failure is logged and the call goes on with what is
   * known (the chat request then reports the real problem, e.g. Ollama not running); only the
   * call's own cancellation stops it.
   */
  async detectForCall(
    wire: string,
    call: { request_id: string; logger: Logger; signal: AbortSignal },
  ): Promise<void> {
    try {
      await this.detect(wire, call.signal);
    } catch (error) {
      if (call.signal.aborted) throw error;
      const mapped = error as AdapterError;
      call.logger.warn(
        {
          event: 'capability_detection_failed',
          adapter: OLLAMA,
          request_id: call.request_id,
          model: wire,
          error_class: mapped.error_class,
        },
        `could not read the capabilities of ${wire} from /api/show (${mapped.message}); using what is known`,
      );
    }
  }

  async #read(wire: string, key: string, signal: AbortSignal): Promise<OllamaModelInfo> {
    const transport = createOllamaCallTransport(this.#settings.transport, signal);
    try {
      const info = parseOllamaShow(await transport.client.show({ model: wire }));
      this.#detected.set(key, info);
      if (!info.capabilities.includes('completion')) {
        this.#settings.logger.warn(
          { event: 'model_cannot_chat', adapter: OLLAMA, model: wire },
          `${wire} does not list the "completion" capability (an embedding model?); chat calls to it will fail`,
        );
      }
      return info;
    } catch (error) {
      throw toOllamaAdapterError(error, {
        ...this.#settings.errorContext,
        request_id: '',
        model: wire,
        headers: transport.lastHeaders(),
      });
    }
  }
}
