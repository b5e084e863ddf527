import { STATEMENTS } from './postgres-append.js';
import { PROVIDER_IDS, SESSION_MESSAGES, SESSION_ROW } from './postgres-reads.js';
import { ANSWER, UPDATE } from './postgres-turn-writes.js';

// The store's own PostgreSQL statements as server-side prepared statements (issue 50): a turn
// sends the same few texts every time, and an unnamed statement is parsed and planned by the
// server at every execution, on a server that shares the machine's cores. pg prepares a named
// statement once per connection and then only binds and executes it. Only these fixed texts are
// named: kysely's other queries vary (list lengths) and would pile up on every connection.

/** Each of the store's fixed statement texts, with the name it is prepared under. */
export const NAMED_STATEMENTS: ReadonlyMap<string, string> = new Map(
  [
    ...Object.values(STATEMENTS),
    ...Object.values(ANSWER),
    ...Object.values(UPDATE),
    SESSION_MESSAGES,
    PROVIDER_IDS,
    SESSION_ROW,
  ].map((text, i) => [text, `yourtool_store_${i}`]),
);

/** A pg client, as far as naming its statements goes. */
interface QueryingClient {
  query: (...args: unknown[]) => unknown;
}

/**
 * Makes `client` send the store's fixed statements by name (`{ name, text, values }`); every
 * other call goes to pg's own `query` unchanged (looked up at each call, so wrappers of the
 * prototype still see every statement).
 */
export function nameStoreStatements(client: QueryingClient): void {
  const proto = Object.getPrototypeOf(client) as QueryingClient;
  client.query = function (this: unknown, ...args: unknown[]) {
    const [text, values] = args;
    const name =
      typeof text === 'string' && args.length === 2 ? NAMED_STATEMENTS.get(text) : undefined;
    if (name !== undefined && Array.isArray(values))
      return proto.query.call(this, { name, text, values });
    return proto.query.apply(this, args);
  };
}
