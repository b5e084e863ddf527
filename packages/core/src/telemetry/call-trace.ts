/**
 * The telemetry of one model call, opened by the call runner so that every adapter is traced,
 * with or without a session: the `chat {model}` span (kind CLIENT) with the GenAI attributes,
 * one `yourtool.retry` event per failed attempt that is retried, and the client metric points
 * (operation duration, token usage, time to first chunk for streams).
 *
 * Nothing here runs per stream chunk: the time to first chunk is taken once, when the runner
 * has read the first chunk; the reply's attributes come from the finished response or the
 * stream builder's `message.complete`.
 */
import { type AdapterError, isAdapterError, isCancelledError } from '../errors.js';
import type { AttemptEvent } from '../retry.js';
import type {
  CanonicalRequest,
  CanonicalResponse,
  StopReason,
  TokenUsage,
} from '../schemas/adapter.js';
import type { ContentBlock } from '../schemas/content.js';
import type { MessageCompleteEvent } from '../schemas/stream.js';
import { captureContentFromEnv, type OtelApi, otelApi } from './api.js';
import {
  ATTR,
  CORE_SCOPE,
  definedAttributes,
  errorTypeOf,
  genAiProviderName,
  providerModelName,
  responseIdOf,
  YOURTOOL_ATTR,
} from './attributes.js';
import {
  inputMessagesJson,
  outputMessagesJson,
  systemInstructionsJson,
  toolDefinitionsJson,
} from './content.js';
import { type ClientInstruments, clientInstruments } from './metrics.js';
import type { CallTelemetryOptions } from './options.js';
import type { ServerAddress } from './server.js';
import { startSpan, type TelemetrySpan, tracingActive } from './spans.js';

/** What the call trace needs of the adapter's call setup. */
export interface CallTraceSetup {
  /** Adapter name (the provider key). */
  provider: string;
  /** The model's wire name (`wireNames`), when the adapter knows it. */
  wireName?: (model: string) => string;
  /** Where the adapter sends (`server.address`, `server.port`), when it knows. */
  server?: ServerAddress | null;
  /**
   * The provider's own finish reason of a reply (`stop`, `end_turn`, `STOP`, ...), read by the
   * adapter from its `provider_raw`, for `gen_ai.response.finish_reasons`.
   */
  wireFinishReason?: (providerRaw: Record<string, unknown>) => string | undefined;
}

/** What a call produced, as far as its telemetry is concerned. */
interface CallResult {
  content?: readonly ContentBlock[];
  stop_reason?: StopReason;
  usage?: TokenUsage;
  served_model?: string | null;
  provider_raw?: Record<string, unknown> | null;
  provider_response_id?: string | null;
  latency_ms?: number;
}

const now = () => performance.now();

/** A stream's end, as a call result. */
function resultOf(event: MessageCompleteEvent): CallResult {
  return {
    content: event.final_content,
    stop_reason: event.stop_reason,
    usage: event.usage,
    served_model: event.served_model ?? null,
    provider_raw: event.provider_raw ?? null,
    provider_response_id: event.provider_response_id ?? null,
    latency_ms: event.latency_ms,
  };
}

/** The telemetry of one call; see the module comment. */
export class CallTrace {
  readonly #span: TelemetrySpan | null;
  readonly #instruments: ClientInstruments | null;
  readonly #setup: CallTraceSetup;
  readonly #request: CanonicalRequest;
  readonly #options: CallTelemetryOptions | undefined;
  readonly #stream: boolean;
  readonly #requestModel: string;
  readonly #started = now();
  #firstChunkAt: number | null = null;
  #attempts = 0;
  #ended = false;

  private constructor(parts: {
    span: TelemetrySpan | null;
    instruments: ClientInstruments | null;
    setup: CallTraceSetup;
    request: CanonicalRequest;
    options: CallTelemetryOptions | undefined;
    stream: boolean;
    requestModel: string;
  }) {
    this.#span = parts.span;
    this.#instruments = parts.instruments;
    this.#setup = parts.setup;
    this.#request = parts.request;
    this.#options = parts.options;
    this.#stream = parts.stream;
    this.#requestModel = parts.requestModel;
  }

  /**
   * Opens the telemetry of a call, or returns null when neither a tracer nor a meter provider
   * is registered (or the API is not installed): then the call does no telemetry work at all.
   */
  static open(
    api: OtelApi,
    setup: CallTraceSetup,
    request: CanonicalRequest,
    call: { telemetry: CallTelemetryOptions | undefined; stream: boolean },
  ): CallTrace | null {
    const { telemetry, stream } = call;
    const instruments = clientInstruments(api, telemetry?.meterProvider);
    const tracing = tracingActive(api, CORE_SCOPE, telemetry?.tracerProvider);
    if (!tracing && !instruments) return null;
    const requestModel = setup.wireName?.(request.model) ?? providerModelName(request.model);
    const opened = tracing
      ? startSpan(api, CORE_SCOPE, `chat ${requestModel}`, {
          kind: 'client',
          parent: telemetry?.parent,
          tracerProvider: telemetry?.tracerProvider,
          attributes: () => ({
            [ATTR.operationName]: 'chat',
            [ATTR.providerName]: genAiProviderName(setup.provider),
            [ATTR.requestModel]: requestModel,
            [ATTR.serverAddress]: setup.server?.address,
            [ATTR.serverPort]: setup.server?.port,
          }),
        })
      : null;
    const trace = new CallTrace({
      span: opened,
      instruments,
      setup,
      request,
      options: telemetry,
      stream,
      requestModel,
    });
    if (opened?.recording) trace.#recordRequest(opened);
    return trace;
  }

  /** The request's attributes, on a recording span. */
  #recordRequest(span: TelemetrySpan): void {
    const request = this.#request;
    const session_id = request.messages.at(-1)?.session_id;
    span.setAttributes({
      [ATTR.conversationId]: session_id || undefined,
      [ATTR.requestMaxTokens]: request.max_output_tokens,
      [ATTR.requestTemperature]: request.temperature ?? undefined,
      [ATTR.requestStopSequences]:
        request.stop_sequences.length > 0 ? [...request.stop_sequences] : undefined,
      [ATTR.requestStream]: this.#stream || undefined,
      [ATTR.outputType]: request.output_schema ? 'json' : undefined,
      [YOURTOOL_ATTR.requestId]: request.request_id,
      [YOURTOOL_ATTR.modelId]: request.model,
      ...this.#options?.attributes,
    });
    if (this.#captureContent()) {
      span.setAttributes({
        [ATTR.inputMessages]: inputMessagesJson(request.messages),
        [ATTR.systemInstructions]: request.system_prompt
          ? systemInstructionsJson(request.system_prompt)
          : undefined,
        [ATTR.toolDefinitions]:
          request.tools.length > 0 ? toolDefinitionsJson(request.tools) : undefined,
      });
    }
  }

  #captureContent(): boolean {
    return this.#options?.captureContent ?? captureContentFromEnv();
  }

  /** Wraps the caller's `onAttempt`: counts attempts, and records each retry as a span event. */
  observe(onAttempt: ((event: AttemptEvent) => void) | undefined): (event: AttemptEvent) => void {
    return (event) => {
      if (event.type === 'attempt.start') this.#attempts++;
      else if (event.type === 'attempt.failed' && event.will_retry && this.#span?.recording) {
        this.#span.addEvent('yourtool.retry', {
          'yourtool.attempt': event.attempt,
          [ATTR.errorType]: event.error.error_class,
          [YOURTOOL_ATTR.providerStatus]: event.error.provider_status ?? undefined,
          'yourtool.retry.delay_ms': event.delay_ms ?? undefined,
        });
      }
      onAttempt?.(event);
    };
  }

  /** Runs one attempt's transport with the call span active (HTTP spans nest under it). */
  run<T>(fn: () => T): T {
    return this.#span?.recording ? this.#span.run(fn) : fn();
  }

  /** The stream's first chunk arrived. */
  firstChunk(): void {
    this.#firstChunkAt ??= now();
  }

  /** A non-streaming call returned its response. */
  response(response: CanonicalResponse): void {
    this.#end({ ...response }, null);
  }

  /** A stream ended with its `message.complete` (a cancelled one included). */
  completed(event: MessageCompleteEvent): void {
    this.#end(resultOf(event), null);
  }

  /** The call failed (or was cancelled) with `error`; `partial` is a stream's interrupted end. */
  failed(error: unknown, partial?: MessageCompleteEvent | null): void {
    this.#end(partial ? resultOf(partial) : {}, error);
  }

  /** The consumer stopped reading the stream before its end: recorded as a cancellation. */
  abandoned(usage: TokenUsage): void {
    this.#end({ stop_reason: 'cancelled', usage }, null);
  }

  #end(result: CallResult, error: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    try {
      this.#record(result, error);
    } catch {
      // telemetry never breaks a call
    } finally {
      this.#span?.end();
    }
  }

  #record(result: CallResult, error: unknown): void {
    const seconds = (now() - this.#started) / 1000;
    const cancelled = error ? isCancelledError(error) : result.stop_reason === 'cancelled';
    const errorType = error ? errorTypeOf(error) : cancelled ? 'cancelled' : undefined;
    const responseModel = result.served_model ? providerModelName(result.served_model) : undefined;
    const usage = result.usage;
    const inputTokens = usage
      ? usage.input_tokens + usage.cached_input_tokens + usage.cache_creation_input_tokens
      : undefined;
    const span = this.#span;
    if (span?.recording) {
      const adapterError = isAdapterError(error) ? error : null;
      span.setAttributes({
        [ATTR.responseModel]: responseModel,
        // the canonical field; provider_raw only for adapters built before it (decision 0157)
        [ATTR.responseId]:
          result.provider_response_id ?? responseIdOf(result.provider_raw, this.#setup.provider),
        [ATTR.responseFinishReasons]: this.#finishReasons(result),
        [YOURTOOL_ATTR.stopReason]: result.stop_reason,
        [ATTR.usageInputTokens]: inputTokens,
        [ATTR.usageOutputTokens]: usage?.output_tokens,
        [ATTR.usageCacheReadInputTokens]: usage?.cached_input_tokens || undefined,
        [ATTR.usageCacheCreationInputTokens]: usage?.cache_creation_input_tokens || undefined,
        [ATTR.usageReasoningOutputTokens]: usage?.reasoning_tokens,
        [YOURTOOL_ATTR.usageEstimated]: usage?.estimated || undefined,
        [ATTR.responseTimeToFirstChunk]:
          this.#firstChunkAt === null ? undefined : (this.#firstChunkAt - this.#started) / 1000,
        [YOURTOOL_ATTR.attempts]: this.#attempts || undefined,
        [YOURTOOL_ATTR.providerStatus]: adapterError?.provider_status ?? undefined,
      });
      if (result.content && result.stop_reason && this.#captureContent()) {
        span.setAttributes({
          [ATTR.outputMessages]: outputMessagesJson(result.content, result.stop_reason),
        });
      }
      this.#hook(span, result, adapterError, seconds);
      if (errorType && !cancelled) span.fail(errorType);
      // a cancellation is named, but is not the provider's failure: the status stays unset
      else if (cancelled) span.setAttributes({ [ATTR.errorType]: 'cancelled' });
    }
    const instruments = this.#instruments;
    if (!instruments) return;
    const server = this.#setup.server;
    const base = {
      [ATTR.operationName]: 'chat',
      [ATTR.providerName]: genAiProviderName(this.#setup.provider),
      [ATTR.requestModel]: this.#requestModel,
      ...(server ? { [ATTR.serverAddress]: server.address, [ATTR.serverPort]: server.port } : {}),
      ...(responseModel ? { [ATTR.responseModel]: responseModel } : {}),
    };
    instruments.operationDuration.record(
      seconds,
      errorType ? { ...base, [ATTR.errorType]: errorType } : base,
    );
    if (usage && !usage.estimated && inputTokens !== undefined) {
      instruments.tokenUsage.record(inputTokens, { ...base, [ATTR.tokenType]: 'input' });
      instruments.tokenUsage.record(usage.output_tokens, { ...base, [ATTR.tokenType]: 'output' });
    }
    if (this.#stream && this.#firstChunkAt !== null) {
      instruments.timeToFirstChunk.record((this.#firstChunkAt - this.#started) / 1000, base);
    }
  }

  /**
   * `gen_ai.response.finish_reasons`: the provider's own value, as the conventions ask, when the
   * adapter reads one from the reply; else the canonical stop reason (a call that failed or was
   * cancelled before the provider said why it stopped).
   */
  #finishReasons(result: CallResult): string[] | undefined {
    const raw = result.provider_raw;
    const wire = raw ? this.#setup.wireFinishReason?.(raw) : undefined;
    if (wire) return [wire];
    return result.stop_reason ? [result.stop_reason] : undefined;
  }

  /** The caller's end-of-call attributes (the session's cost), on a recording span. */
  #hook(
    span: TelemetrySpan,
    result: CallResult,
    error: AdapterError | null,
    seconds: number,
  ): void {
    const onEnd = this.#options?.onEnd;
    if (!onEnd) return;
    try {
      const extra = onEnd({
        usage: result.usage ?? null,
        served_model: result.served_model ?? null,
        stop_reason: result.stop_reason ?? null,
        latency_ms: result.latency_ms ?? Math.round(seconds * 1000),
        error,
      });
      if (extra) span.setAttributes(definedAttributes(extra));
    } catch {
      // a failing hook costs its attributes, nothing more
    }
  }
}

/**
 * Opens a call's telemetry: null when the API is absent or nothing is registered; a promise
 * only the first time the API is loaded in the process.
 */
export function openCallTrace(
  setup: CallTraceSetup,
  request: CanonicalRequest,
  telemetry: CallTelemetryOptions | undefined,
  stream: boolean,
): CallTrace | null | Promise<CallTrace | null> {
  const api = otelApi();
  if (api === null) return null;
  if (api instanceof Promise) {
    return api.then((loaded) =>
      loaded ? CallTrace.open(loaded, setup, request, { telemetry, stream }) : null,
    );
  }
  return CallTrace.open(api, setup, request, { telemetry, stream });
}
