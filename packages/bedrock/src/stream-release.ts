import type { ConverseStreamCommand } from '@aws-sdk/client-bedrock-runtime';

/** A response body that can be torn down: Node's `http2` stream or `http` message. */
interface Destroyable {
  destroy(error?: Error): void;
  destroyed?: boolean;
}

const destroyable = (value: unknown): value is Destroyable =>
  typeof (value as { destroy?: unknown } | null)?.destroy === 'function';

/** Where {@link captureResponseBody} leaves the HTTP response body of a command. */
export interface BodyHolder {
  body: Destroyable | undefined;
}

/**
 * Keeps the raw HTTP body of `command`'s response: a middleware next to the HTTP handler (the
 * deserialize step, lowest priority) sees the response before the SDK wraps its body in the
 * event-stream iterator. Stopping the SDK's iterator early leaves that body open (seen on HTTP/2
 * and HTTP/1.1 alike), so only this body lets an abandoned stream be closed.
 */
export function captureResponseBody(command: ConverseStreamCommand): BodyHolder {
  const holder: BodyHolder = { body: undefined };
  command.middlewareStack.add(
    (next) => async (args) => {
      const result = await next(args);
      const body = (result.response as { body?: unknown } | undefined)?.body;
      if (destroyable(body)) holder.body = body;
      return result;
    },
    { step: 'deserialize', priority: 'low', name: 'yourtoolCaptureStreamBody' },
  );
  return holder;
}

/**
 * `stream` (the SDK's event iterator) that closes the HTTP body when `signal` aborts
 * (cancellation, a passed deadline) or when the reader stops early (`return()`), so no HTTP/2
 * stream or socket outlives its call waiting for the server to end it.
 */
export function releasingStream<T>(
  stream: AsyncIterable<T>,
  holder: BodyHolder,
  signal: AbortSignal,
): AsyncIterable<T> {
  const release = () => {
    const body = holder.body;
    if (body && !body.destroyed) body.destroy();
  };
  const onAbort = () => release();
  signal.addEventListener('abort', onAbort, { once: true });
  const done = () => signal.removeEventListener('abort', onAbort);
  if (signal.aborted) release();
  return {
    [Symbol.asyncIterator](): AsyncIterator<T> {
      const inner = stream[Symbol.asyncIterator]();
      return {
        next: () =>
          inner.next().then(
            (result) => {
              if (result.done) done();
              return result;
            },
            (error: unknown) => {
              done();
              throw error;
            },
          ),
        return: async (value?: unknown) => {
          done();
          release();
          // the SDK's iterator may already have failed on the destroyed body: nothing to close then
          await inner.return?.(value).catch(() => undefined);
          return { done: true, value: undefined as T };
        },
      };
    },
  };
}
