import type { ErrorClass } from '@yourtool/core';
import { classifyHttpStatus } from '@yourtool/core/adapter';
import {
  classifyOpenAIError,
  type OpenAIErrorFacts,
  openAIErrorBody,
} from '@yourtool/openai/codec';
import type { APIError } from 'openai';

const CONTEXT_OVERFLOW_TEXT =
  /maximum context length|context[ _]length|context window|prompt is too long|too many tokens|reduce the length/i;

/** Upstream error types and codes that mean the upstream provider is overloaded or rate limited. */
const UPSTREAM_RATE_LIMIT = new Set([
  'overloaded_error',
  'rate_limit_error',
  'rate_limit_exceeded',
  'insufficient_quota',
]);

/**
 * The upstream provider's error type (`error.type`, else `error.code`, else a top-level `type`
 * other than `error`) read from `metadata.raw` when it holds that provider's JSON error body;
 * `null` for anything else. Read as JSON, never matched as text: an upstream message that merely
 * mentions `rate_limit_error` is not one (decision 0072).
 */
export function upstreamErrorType(raw: string): string | null {
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    return null;
  }
  if (body === null || typeof body !== 'object') return null;
  const { error, type } = body as { error?: unknown; type?: unknown };
  if (error !== null && typeof error === 'object') {
    const inner = error as { type?: unknown; code?: unknown };
    if (typeof inner.type === 'string') return inner.type;
    if (typeof inner.code === 'string') return inner.code;
  }
  return typeof type === 'string' && type !== 'error' ? type : null;
}

/**
 * Classifies an OpenRouter error. Its body is `{ error: { code, message, metadata } }` with the
 * HTTP status as `code` (also inside a stream, where there is no HTTP status); `metadata.raw`
 * may hold the upstream provider's own error body.
 *
 * - 402 (credits or in-flight budget exhausted) → rate_limit: the route is unusable for now,
 *   like a rate limit, and a `retry-after` is honoured when sent (decision 0043);
 * - 403 with moderation `reasons` → invalid_request; 403 with a `limit_source` (a spend limit)
 *   → rate_limit; other 403 → auth;
 * - an upstream `overloaded_error`, `rate_limit_error`, `rate_limit_exceeded` or
 *   `insufficient_quota` (read from `metadata.raw` as JSON, {@link upstreamErrorType}) →
 *   rate_limit;
 * - a message (or upstream message) about the context length → context_overflow;
 * - then the status table and the OpenAI codes.
 */
export function classifyOpenRouterError(facts: OpenAIErrorFacts, error?: APIError): ErrorClass {
  const status = facts.status ?? (typeof facts.code === 'number' ? facts.code : undefined);
  const metadata = (error ? openAIErrorBody(error).metadata : undefined) ?? {};
  const upstream = typeof metadata.raw === 'string' ? metadata.raw : '';
  if (status === 402) return 'rate_limit';
  if (status === 403) {
    if (Array.isArray(metadata.reasons)) return 'invalid_request';
    if (typeof metadata.limit_source === 'string') return 'rate_limit';
    return 'auth';
  }
  const upstreamType = upstream ? upstreamErrorType(upstream) : null;
  if (upstreamType !== null && UPSTREAM_RATE_LIMIT.has(upstreamType)) return 'rate_limit';
  if (
    (status === undefined || classifyHttpStatus(status) === 'invalid_request') &&
    (CONTEXT_OVERFLOW_TEXT.test(facts.message) || CONTEXT_OVERFLOW_TEXT.test(upstream))
  ) {
    return 'context_overflow';
  }
  return classifyOpenAIError({ ...facts, status });
}
