/**
 * Helpers for the adapters' stream-parity tests (decision 0147): a recorded stream mapped through
 * core's body reader must give what it gave through the SDK's own stream.
 */

/** A scripted response as the conformance fixtures hold it (the fields the filter reads). */
interface RecordedResponse {
  type: string;
  ending?: string;
  contentType?: string;
}

/**
 * The recorded SSE streams of a fixture directory that run to their end (a stalled stream waits
 * for a cancellation these tests do not make), by scenario.
 */
export function recordedSseStreams<R extends RecordedResponse>(
  fixtures: Record<string, R[] | undefined>,
): Array<[string, R[]]> {
  return Object.entries(fixtures).flatMap(([scenario, responses]) => {
    const streams = (responses ?? []).filter(
      (r) => r.type === 'stream' && r.ending !== 'stall' && r.contentType === 'text/event-stream',
    );
    return streams.length === 0 ? [] : [[scenario, streams] as [string, R[]]];
  });
}

/** Events with what differs from run to run made equal: latencies and per-call tool ids. */
export function normalizedEvents(events: unknown[]): unknown {
  const ids = new Map<string, string>();
  const text = JSON.stringify(events, (key, value) => (key === 'latency_ms' ? 0 : value));
  return JSON.parse(
    text.replace(/tu_[0-9A-Z]{26}/g, (id) => {
      if (!ids.has(id)) ids.set(id, `tu_${ids.size}`);
      return ids.get(id) as string;
    }),
  );
}

/** What a stream came to: its normalized events, and the error it ended with (class, status, message). */
export async function streamOutcome(events: AsyncIterable<unknown>) {
  const seen: unknown[] = [];
  let error: unknown;
  try {
    for await (const event of events) seen.push(event);
  } catch (caught) {
    error = caught;
  }
  const e = error as (Error & { error_class?: string; provider_status?: number }) | undefined;
  return {
    events: normalizedEvents(seen),
    error: e && {
      name: e.name,
      class: e.error_class,
      status: e.provider_status,
      message: e.message,
    },
  };
}
