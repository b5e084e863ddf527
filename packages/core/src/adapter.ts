import { linkAbort } from './abort-link.js';
import { InvalidRequestError } from './errors.js';
import type { Logger } from './logger.js';
import { InvalidModelIdError, parseModelId } from './model-id.js';
import { formatPath, issuesFromZod, type ParseIssue } from './parse.js';
import { quickCanonicalRequest, quickRequestShell } from './quick-request.js';
import type { AttemptEvent } from './retry.js';
import {
  type AdapterCapabilities,
  type CanonicalRequest,
  type CanonicalRequestInput,
  CanonicalRequestSchema,
  type CanonicalResponse,
} from './schemas/adapter.js';
import type { Message } from './schemas/message.js';
import type { StreamEvent } from './schemas/stream.js';
import type { ToolDefinition } from './schemas/tool.js';
import { isSealedMessage } from './sealed.js';
import { SealedPrefixMemo } from './sealed-prefix.js';
import type { CallTelemetryOptions } from './telemetry/options.js';
import { toolChoiceViolations } from './tool-choice.js';
import type { ToolIdMap } from './tool-id-map.js';
import { imageSourceViolations } from './validate-image.js';

/** Per-call options every adapter accepts next to the canonical request. */
export interface CallOptions {
  /**
   * Aborts the call. Before the response: the call rejects with `CancelledError`. Mid-stream:
   * open tool uses end with what parses, `message.complete` arrives with
   * `stop_reason: "cancelled"`, and the iterator ends.
   */
  signal?: AbortSignal;
  /**
   * The session's tool id map. Provider ids seen in the reply are linked to canonical ids in it,
   * and canonical ids in the history are sent under the provider ids it holds (or derives).
   * Without one, a map private to the call is used.
   */
  toolIdMap?: ToolIdMap;
  /** Observes each attempt of the bounded retry (start, failure, success). */
  onAttempt?: (event: AttemptEvent) => void;
  /** Overrides the adapter's logger for this call. */
  logger?: Logger;
  /**
   * Provider-specific per-call options, keyed by adapter name (e.g.
   * `{ anthropic: { thinking: { type: 'adaptive' } } }`). Each adapter reads only its own key;
   * core never reads them.
   */
  providerOptions?: Record<string, Record<string, unknown>>;
  /**
   * OpenTelemetry options of this call: content capture, the parent context, attributes (see
   * docs/observability.md). The call's span and metrics are recorded whenever an OpenTelemetry
   * SDK is registered, with or without them; nothing is recorded when none is.
   */
  telemetry?: CallTelemetryOptions;
}

/**
 * Construction options every adapter accepts next to its {@link AdapterConfig}, used by its call
 * runner (logger, retry tuning, capability overrides, wire names, fetch). These are the
 * TypeScript-side knobs (camelCase); the config keeps the spec's field names.
 */
export interface CallRunnerOptions {
  /** Where WARN entries (dropped blocks, repairs) go. Silent by default. */
  logger?: Logger;
  /** Backoff tuning of the bounded retry (tests shorten it; defaults follow the contract). */
  retry?: { baseDelayMs?: number; maxDelayMs?: number; random?: () => number };
  /**
   * Capability overrides per model (canonical id or wire name), merged over the adapter's own
   * declarations; e.g. to mark a local model that does not tool-call reliably.
   */
  capabilityOverrides?: Record<string, Partial<AdapterCapabilities>>;
  /** Wire model names by canonical id, when they differ from the name after the first colon. */
  wireNames?: Record<string, string>;
  /** A custom fetch for the adapter's HTTP client (proxies, instrumentation). */
  fetch?: typeof fetch;
}

/**
 * @deprecated Renamed {@link CallRunnerOptions} ("runtime" is `@yourtool/runtime`); this alias
 * goes in the next minor version.
 */
export type AdapterRuntimeOptions = CallRunnerOptions;

/**
 * The contract every provider adapter implements (provider-adapter-contract §3). An adapter
 * translates canonical requests into one provider's wire format and the provider's replies
 * back into canonical content, events, stop reasons, token usage and error classes.
 */
export interface ProviderAdapter {
  /** Adapter name, which is also the provider key of its models (`anthropic`, `openai`, ...). */
  readonly name: string;
  /** Capabilities of the adapter's default model (see {@link capabilitiesFor}). */
  readonly capabilities: AdapterCapabilities;
  /** Honest capabilities of one model (canonical `provider:name` id or wire name). */
  capabilitiesFor(model: string): AdapterCapabilities;
  /** Non-streaming call. Rejects with an `AdapterError` subclass on failure. */
  complete(request: CanonicalRequestInput, options?: CallOptions): Promise<CanonicalResponse>;
  /**
   * Streaming call. Yields canonical events that satisfy the stream invariants. An error before
   * the first event is thrown from the iterator; an error after it yields `message.complete`
   * with `stop_reason: "error"` and the partial content, then throws.
   */
  stream(request: CanonicalRequestInput, options?: CallOptions): AsyncIterable<StreamEvent>;
  /** Pre-flight input token estimate (±10%), without calling the provider. */
  estimateInputTokens(
    messages: readonly Message[],
    tools: readonly ToolDefinition[],
    system_prompt: string | null | undefined,
  ): number;
  /**
   * Cancels an in-flight call. Resolves `true` if a call was cancelled, `false` if none with
   * that id was running. Idempotent.
   */
  cancel(request_id: string): Promise<boolean>;
  /** Releases resources (connection pools). Further calls fail. */
  close(): Promise<void>;
  /**
   * Optional: learns a model's capabilities from the provider (Ollama's `/api/show`) before
   * routing relies on them. The router's `prepare()` calls it for every registered model of the
   * adapter whose {@link capabilitiesDetected} says `false`.
   */
  detectCapabilities?(
    model: string,
    options?: { signal?: AbortSignal },
  ): Promise<AdapterCapabilities>;
  /**
   * Optional: whether {@link capabilitiesFor} reports what the provider said about `model`
   * (`true`) or conservative defaults because nothing was detected yet (`false`). Adapters whose
   * capabilities are static omit it.
   */
  capabilitiesDetected?(model: string): boolean;
  /**
   * Why this adapter cannot make a call as configured (no API key in its config or its
   * environment), or `null` when it can. The registry marks the models of an adapter that
   * reports a problem `not_configured` before routing, so no turn is routed to a model whose
   * every call would fail. The text must not quote a secret. Optional: absent means ready.
   */
  setupProblem?(): string | null;
}

/**
 * Tracks in-flight calls of an adapter so `cancel(request_id)` can abort them. `begin` returns
 * a signal that aborts when either the caller's signal aborts or `cancel` is called.
 */
export class InflightCalls {
  readonly #calls = new Map<string, AbortController>();

  /** Registers a call and returns its combined signal and a function to unregister it. */
  begin(requestId: string, signal?: AbortSignal): { signal: AbortSignal; end: () => void } {
    const controller = new AbortController();
    this.#calls.set(requestId, controller);
    // the call's signal aborts with the caller's (linked, not `AbortSignal.any`: decision 0204)
    const unlink = signal ? linkAbort(signal, controller) : undefined;
    return {
      signal: controller.signal,
      end: () => {
        unlink?.();
        if (this.#calls.get(requestId) === controller) this.#calls.delete(requestId);
      },
    };
  }

  /** Aborts the call with this id. `true` if one was running. */
  cancel(requestId: string): boolean {
    const controller = this.#calls.get(requestId);
    if (!controller) return false;
    this.#calls.delete(requestId);
    controller.abort();
    return true;
  }

  /** Aborts every call (used by `close`). */
  cancelAll(): void {
    for (const controller of this.#calls.values()) controller.abort();
    this.#calls.clear();
  }

  /** Number of calls in flight. */
  get size(): number {
    return this.#calls.size;
  }
}

/** Where the sealed messages a history starts with end, remembered per history. */
const sealedRuns = new SealedPrefixMemo<null>(() => null);
const countNothing = () => undefined;

/**
 * The request schema without its messages, for requests that carry sealed messages (a
 * session's): built on the first such request, not at import. This object is its owner.
 */
const requestSchemas = {
  shell: undefined as
    | ReturnType<typeof CanonicalRequestSchema.omit<{ messages: true }>>
    | undefined,
};
/** The request shell schema, built on first use (see `requestSchemas`). */
const requestShellSchema = () => {
  requestSchemas.shell ??= CanonicalRequestSchema.omit({ messages: true });
  return requestSchemas.shell;
};
/**
 * A request's shell: a session's passes the quick check, so the schema runs only for the rest
 * (and names their faults).
 */
function parseShell(request: unknown) {
  const quick = quickRequestShell(request);
  return quick ? { success: true as const, data: quick } : requestShellSchema().safeParse(request);
}

/** A request checked whole: by the quick checks when they accept it (decision 0198), else zod. */
function parseWholeRequest(request: unknown) {
  const quick = quickCanonicalRequest(request);
  return quick
    ? ({ success: true, data: quick } as const)
    : CanonicalRequestSchema.safeParse(request);
}

/**
 * Validates a canonical request written by a caller and fills its defaults. Throws
 * `InvalidRequestError` naming every offending path, the model id that is not `provider:name`,
 * or an image source no provider could use (nothing is sent to the provider).
 *
 * Sealed messages (`sealMessage`: validated once, then frozen) are taken as they are; every
 * other message is checked against the schema, so a session's turn checks only what is new
 * (decision 0102).
 */
export function normalizeRequest(request: CanonicalRequestInput): CanonicalRequest {
  const input: unknown = (request as { messages?: unknown } | null | undefined)?.messages;
  // the sealed messages a history starts with are counted once per history (decision 0148)
  const leading = Array.isArray(input) ? sealedRuns.run(input as Message[], countNothing).end : 0;
  const sealed =
    leading > 0 || !Array.isArray(input) ? leading : input.filter(isSealedMessage).length;
  const fail = (issues: ParseIssue[]): never => {
    throw new InvalidRequestError(
      `invalid canonical request: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
      {
        request_id: typeof request?.request_id === 'string' ? request.request_id : '',
        retryable: false,
      },
    );
  };
  let normalized: CanonicalRequest;
  if (sealed === 0) {
    // nothing sealed: one pass of the whole schema (cheaper than a call per message)
    const parsed = parseWholeRequest(request);
    if (!parsed.success) return fail(issuesFromZod(parsed.error));
    normalized = parsed.data;
  } else {
    // the sealed messages are taken as they are; the others checked in one pass, their
    // issues named by their place in the request
    const list = input as unknown[];
    const issues: ParseIssue[] = [];
    const shell = parseShell(request);
    if (!shell.success) issues.push(...issuesFromZod(shell.error));
    const places: number[] = [];
    const unsealed: unknown[] = [];
    for (let i = leading; i < list.length; i++) {
      const candidate = list[i];
      if (!isSealedMessage(candidate)) {
        places.push(i);
        unsealed.push(candidate);
      }
    }
    // (a session's request carries only sealed messages: nothing to check then)
    const checked =
      unsealed.length > 0
        ? CanonicalRequestSchema.shape.messages.safeParse(unsealed)
        : ({ success: true, data: [] } as const);
    if (!checked.success) {
      for (const issue of checked.error.issues) {
        const [at, ...rest] = issue.path;
        issues.push({
          path: formatPath(rest, `messages[${places[at as number] ?? '?'}]`),
          message: issue.message,
        });
      }
    }
    if (!shell.success || !checked.success) return fail(issues);
    const messages = list.slice() as Message[];
    places.forEach((place, j) => {
      messages[place] = checked.data[j] as Message;
    });
    normalized = { ...shell.data, messages };
  }
  try {
    parseModelId(normalized.model);
  } catch (error) {
    if (!(error instanceof InvalidModelIdError)) throw error;
    throw new InvalidRequestError(`invalid canonical request: model: ${error.message}`, {
      request_id: normalized.request_id,
      retryable: false,
      cause: error,
    });
  }
  const violations = [
    ...imageSourceViolations(normalized.messages),
    ...toolChoiceViolations(normalized),
  ];
  if (violations.length > 0) {
    throw new InvalidRequestError(
      `invalid canonical request: ${violations.map((v) => `${v.path}: ${v.message}`).join('; ')}`,
      { request_id: normalized.request_id, retryable: false },
    );
  }
  return normalized;
}
