/**
 * Makes `controller` abort when `source` does (with its reason; at once if it already has) and
 * returns what stops that. It stands in for `AbortSignal.any([source, controller.signal])`,
 * which costs about ten times as much per call in Node (the combined signal is tracked through
 * weak references the garbage collector has to clear; decision 0204): a provider call links two
 * signals, so a thousand concurrent sessions paid for it on every call.
 */
export function linkAbort(source: AbortSignal, controller: AbortController): () => void {
  if (source.aborted) {
    controller.abort(source.reason);
    return unlinked;
  }
  const onAbort = () => controller.abort(source.reason);
  source.addEventListener('abort', onAbort, { once: true });
  return () => source.removeEventListener('abort', onAbort);
}

const unlinked = (): void => undefined;
