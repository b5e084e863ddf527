/**
 * Counting the SQL statements our side issues on PostgreSQL: `pg`'s `Client.prototype.query`
 * is wrapped (every statement the store sends, kysely's and the driver-level BEGIN / COMMIT
 * alike, passes through it), and undici's `undici:request:create` diagnostics channel says when
 * a model request leaves (the Anthropic SDK uses the global fetch).
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import pg from 'pg';

/** A running statement count; `stop()` removes the wrapper. */
export interface StatementCounter {
  readonly count: number;
  stop(): void;
}

/** Starts counting every statement any `pg` client of this process sends. */
export function countStatements(): StatementCounter {
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  const counter = { count: 0, stop: (): void => undefined };
  proto.query = function (this: unknown, ...args: unknown[]) {
    counter.count++;
    return original.apply(this, args);
  };
  counter.stop = () => {
    proto.query = original;
  };
  return counter;
}

/** Calls `onRequest` each time this process's fetch starts a request; returns the unsubscriber. */
export function onRequestLeaving(onRequest: () => void): () => void {
  const listener = () => onRequest();
  subscribe('undici:request:create', listener);
  return () => unsubscribe('undici:request:create', listener);
}
