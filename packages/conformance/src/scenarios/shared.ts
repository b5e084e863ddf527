import { expect } from 'vitest';
import type { ScenarioName } from '../catalog.js';
import type { ScenarioKit } from '../kit.js';
import type { ScriptedResponse } from '../server.js';

/** How to make an adapter close its HTTP request when a call is cancelled or times out. */
export const ABORT_ADVICE =
  'hand the attempt’s signal (the `signal` in the context runCompleteCall / runStreamCall ' +
  'give your transport; core aborts it on cancel(request_id), on the caller’s signal and on ' +
  'a passed deadline) to the HTTP call itself: the SDK’s per-request `signal` option, or ' +
  '`fetch(url, { signal })`. Rejecting with CancelledError while the request runs on leaves ' +
  'the provider generating (and billing) a reply nobody reads';

/** A short description of what a call threw, for failure messages. */
export function describeError(error: unknown): string {
  if (error === undefined) return 'nothing';
  if (error instanceof Error) {
    const errorClass = (error as { error_class?: unknown }).error_class;
    return `${error.name}${typeof errorClass === 'string' ? ` (${errorClass})` : ''}: ${error.message}`;
  }
  return String(error);
}

/** Fails unless the roles of a wire request alternate. */
export function expectAlternatingRoles(roles: string[]): void {
  roles.forEach((role, i) => {
    if (i > 0) expect(role, `roles must alternate: ${roles.join(', ')}`).not.toBe(roles[i - 1]);
  });
}

/** A streamed response: text chunks (SSE, NDJSON) or binary frames (Bedrock's event stream). */
export type StreamedResponse = Extract<ScriptedResponse, { type: 'stream' | 'binary-stream' }>;

/** What a derived stream may change: its ending, and its chunks emptied. */
export interface StreamChange {
  chunks?: [];
  ending?: StreamedResponse['ending'];
}

/**
 * The streamed response (text or binary) of another scenario's fixture, reshaped (e.g. no
 * chunks).
 */
export function derivedStream(
  kit: ScenarioKit,
  source: ScenarioName,
  change: StreamChange,
): StreamedResponse {
  const found = (kit.fixtures[source] ?? []).find(
    (r) => r.type === 'stream' || r.type === 'binary-stream',
  );
  if (found?.type === 'stream') return { ...found, ...change };
  if (found?.type === 'binary-stream') return { ...found, ...change };
  throw new Error(`the "${source}" fixture must hold a streamed response to derive from`);
}

/** The "text" reply's headers and the first half of its body, then silence. */
export function stalledTextReply(kit: ScenarioKit): ScriptedResponse {
  const text = (kit.fixtures.text ?? []).find((r) => r.type === 'json');
  if (text?.type !== 'json') {
    throw new Error('the "text" fixture must be a JSON response to derive from');
  }
  const body = JSON.stringify(text.body);
  return {
    type: 'stream',
    contentType: 'application/json',
    ...(text.headers ? { headers: text.headers } : {}),
    chunks: [body.slice(0, Math.floor(body.length / 2))],
    ending: 'stall',
  };
}
