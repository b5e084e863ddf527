import { ApiError } from '@google/genai';
import type { GeminiResponseLike } from '../codec/response.js';
import { mergeGeminiUsage, type UsageRecord } from './merge-usage.js';

/** Gemini's finish reason for a checkpoint the reply can be resumed from. */
const CONTINUATION = 'CONTINUATION';

/** Hops in a row without a new checkpoint before the stream gives up (the SDK's bound). */
const MAX_RECONNECTS_WITHOUT_PROGRESS = 3;

/** A hop's failure, wrapped so that a thrown `undefined` is still one. */
export interface HopError {
  error: unknown;
}

/** What one request (hop) of a continued stream has shown so far. */
interface Hop {
  startToken: string | undefined;
  token: string | undefined;
  finishReason: unknown;
  hasPromptFeedback: boolean;
  hasYieldedContent: boolean;
  receivedAnyChunk: boolean;
  usage: UsageRecord | undefined;
}

function newHop(startToken: string | undefined): Hop {
  return {
    startToken,
    token: undefined,
    finishReason: undefined,
    hasPromptFeedback: false,
    hasYieldedContent: false,
    receivedAnyChunk: false,
    usage: undefined,
  };
}

const resumable = (finishReason: unknown) =>
  finishReason === undefined || finishReason === CONTINUATION;

/**
 * Gemini's automatic continuation, as `@google/genai`'s `generateContentStream` does it (on
 * unless `config.automaticContinuation` is `false`): a long decode may end a response with
 * `finishReason: "CONTINUATION"` and a `continuationToken`, or carry checkpoint tokens along
 * the way; the same request is then sent again with the token (a new hop) and the reply goes on.
 * This class is the SDK's `StreamContinuation` rule for rule, so the adapter reading the body
 * itself resumes (or fails) exactly where the SDK's stream did:
 *
 * - {@link observe} records each chunk; from the second hop on, a chunk's `usageMetadata` is its
 *   hop's running total plus the earlier hops' usage; a resumable finish reason is cleared, so
 *   the mapper does not complete the message at a checkpoint;
 * - {@link endHop} decides after a hop ended or failed: resume from the latest checkpoint (or
 *   retry a hop that failed before any content or checkpoint, up to 3 times), stop, or throw.
 *   An abort, and an `ApiError` before the hop received a chunk (the request was refused), are
 *   thrown at once; after a stream gave up, the latest error since it last made progress is.
 *
 * Without continuation tokens (every stream today but very long decodes) it changes nothing.
 */
export class GeminiContinuation {
  readonly #enabled: boolean;
  readonly #signal: AbortSignal;
  #hop: Hop = newHop(undefined);
  #resumeToken: string | undefined;
  #reconnects = 0;
  #accumulatedUsage: UsageRecord | undefined;
  #lastError: HopError | undefined;

  /** `enabled`: `config.automaticContinuation !== false`; `signal`: the attempt's. */
  constructor(enabled: boolean, signal: AbortSignal) {
    this.#enabled = enabled;
    this.#signal = signal;
  }

  /** Starts the next hop; its request carries the returned token (none for the first hop). */
  startHop(): string | undefined {
    this.#hop = newHop(this.#resumeToken);
    return this.#resumeToken;
  }

  /** Records one chunk of the current hop (and adjusts it, see the class). */
  observe(chunk: GeminiResponseLike): void {
    const hop = this.#hop;
    hop.receivedAnyChunk = true;
    if (chunk.promptFeedback !== undefined && chunk.promptFeedback !== null) {
      hop.hasPromptFeedback = true;
    }
    const usage = chunk.usageMetadata as UsageRecord | undefined;
    if (usage) {
      if (this.#accumulatedUsage) {
        const merged = mergeGeminiUsage(this.#accumulatedUsage, usage);
        chunk.usageMetadata = merged;
        hop.usage = merged;
      } else hop.usage = usage;
    }
    const first = chunk.candidates?.[0];
    if (!first) return;
    const parts = first.content?.parts;
    if (parts && parts.length > 0) hop.hasYieldedContent = true;
    if (first.finishReason !== undefined) hop.finishReason = first.finishReason;
    if (first.continuationToken) hop.token = first.continuationToken;
    else if (first.finishReason !== undefined && !resumable(first.finishReason)) {
      hop.token = undefined;
    }
    if (first.finishReason !== undefined && this.#canResume(hop.token, first.finishReason, false)) {
      first.finishReason = undefined;
    }
  }

  /**
   * Ends the current hop (`hopError`: how it failed, if it did). Returns whether to start
   * another; throws the error the stream fails with.
   */
  endHop(hopError?: HopError): boolean {
    const hop = this.#hop;
    if (hop.usage) this.#accumulatedUsage = hop.usage;
    if (hopError && (this.#aborted(hopError.error) || refusedOutright(hopError.error, hop))) {
      throw hopError.error;
    }
    const madeProgress =
      hop.hasYieldedContent || (Boolean(hop.token) && hop.token !== hop.startToken);
    if (hopError) this.#lastError = hopError;
    else if (madeProgress) this.#lastError = undefined;
    [this.#resumeToken, this.#reconnects] = this.#nextResumeToken();
    if (this.#canResume(this.#resumeToken, hop.finishReason, hop.hasPromptFeedback)) return true;
    if (hopError) throw hopError.error;
    const gaveUp = hop.finishReason === undefined && !hop.hasPromptFeedback;
    if (gaveUp && this.#lastError) throw this.#lastError.error;
    return false;
  }

  /** The token to resume from (none: stop) and the updated count of hops without progress. */
  #nextResumeToken(): [string | undefined, number] {
    const hop = this.#hop;
    const reconnects = this.#reconnects;
    if (hop.finishReason !== undefined || hop.hasPromptFeedback) {
      const checkpoint =
        hop.finishReason === CONTINUATION &&
        !hop.hasPromptFeedback &&
        hop.token &&
        hop.token !== hop.startToken;
      return [checkpoint ? hop.token : undefined, 0];
    }
    if (hop.token && hop.token !== hop.startToken) return [hop.token, 0];
    if (hop.hasYieldedContent || reconnects >= MAX_RECONNECTS_WITHOUT_PROGRESS) {
      return [undefined, reconnects];
    }
    return [hop.startToken, reconnects + 1];
  }

  #canResume(token: string | undefined, finishReason: unknown, hasPromptFeedback: boolean) {
    return this.#enabled && !hasPromptFeedback && Boolean(token) && resumable(finishReason);
  }

  #aborted(error: unknown): boolean {
    return this.#signal.aborted || (error instanceof Error && error.name === 'AbortError');
  }
}

/** An `ApiError` before the hop received anything: the request itself was refused. */
function refusedOutright(error: unknown, hop: Hop): boolean {
  return error instanceof ApiError && !hop.receivedAnyChunk;
}
