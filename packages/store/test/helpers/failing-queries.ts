import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';

const KINDS = { insert: 'InsertQueryNode', update: 'UpdateQueryNode' } as const;

/**
 * A kysely plugin that makes the database "fail" on one kind of statement against one table,
 * to prove that a write transaction leaves nothing behind when a later statement of it fails.
 */
export class FailingQueries implements KyselyPlugin {
  #target: { kind: string; table: string } | undefined;

  failOn(kind: keyof typeof KINDS, table: string): void {
    this.#target = { kind: KINDS[kind], table };
  }

  reset(): void {
    this.#target = undefined;
  }

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    const target = this.#target;
    if (target && args.node.kind === target.kind) {
      const node = args.node as { into?: unknown; table?: unknown };
      const table = JSON.stringify(node.into ?? node.table ?? null);
      if (table.includes(`"name":"${target.table}"`)) {
        throw new Error(`injected failure on ${target.kind} ${target.table}`);
      }
    }
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}
