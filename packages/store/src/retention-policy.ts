import { InvalidStoreInputError } from './errors.js';

/** What {@link SqlSessionStore.pruneSessions} removes, and how. */
export interface PruneOptions {
  /** Sessions without activity (any write) for this many ms expire. */
  olderThanMs: number;
  /**
   * Per-tag ages (ms) that replace `olderThanMs` for sessions carrying the tag (decision 0182's
   * tags); a session with several listed tags keeps to the longest of them.
   */
  tags?: Readonly<Record<string, number>>;
  /** Count what would go, remove nothing. */
  dryRun?: boolean;
  /** Sessions per delete transaction, 1 to 1000. Default 50. */
  batchSize?: number;
}

/** The rows of each table a prune removed (or, dry, would remove). */
export interface PrunedRows {
  sessions: number;
  messages: number;
  tool_calls: number;
  tool_approvals: number;
  /** Rows of `budgets`, `budget_windows` and `budget_reservations` scoped `session:<id>`. */
  budget_rows: number;
}

/** What a prune did. */
export interface PruneReport {
  /** Whether nothing was removed (`dryRun`). */
  dry_run: boolean;
  /** Sessions removed (or, dry, that would be). */
  sessions: number;
  /** Rows per table; `total` their sum. */
  rows: PrunedRows & { total: number };
  /** Idle-looking sessions left alone: a turn held their lease, or wrote to them meanwhile. */
  skipped_active: number;
  /** Delete transactions run. */
  batches: number;
  /**
   * Bytes the store got back. SQLite: file bytes released by `incremental_vacuum` when the
   * database has `auto_vacuum = INCREMENTAL`, else bytes of pages freed for reuse inside the
   * file. PostgreSQL: the stored size of the removed rows, reusable after (auto)vacuum.
   */
  freed_bytes: number;
  /** How `freed_bytes` was measured. */
  freed_measure: 'sqlite_incremental_vacuum' | 'sqlite_free_pages' | 'postgres_row_size' | 'none';
  /** Wall time of the prune, ms. */
  duration_ms: number;
}

/** The checked options, with the cut-off for a session's tags. */
export interface Policy {
  olderThanMs: number;
  tags: ReadonlyMap<string, number>;
  dryRun: boolean;
  batchSize: number;
  /** The shortest age of the policy: no session younger than it can expire. */
  shortestMs: number;
}

const age = (v: unknown) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** @throws InvalidStoreInputError naming each bad option. */
export function checkPolicy(options: PruneOptions): Policy {
  const issues: Array<{ path: string; message: string }> = [];
  if (!age(options?.olderThanMs)) {
    issues.push({
      path: 'olderThanMs',
      message: `must be a whole number of ms, 0 or more, got ${options?.olderThanMs}`,
    });
  }
  const tags = new Map<string, number>();
  for (const [tag, ms] of Object.entries(options?.tags ?? {})) {
    if (!age(ms))
      issues.push({
        path: `tags.${tag}`,
        message: `must be a whole number of ms, 0 or more, got ${ms}`,
      });
    else tags.set(tag, ms);
  }
  const batch = options?.batchSize ?? 50;
  if (!Number.isSafeInteger(batch) || batch < 1 || batch > 1000) {
    issues.push({
      path: 'batchSize',
      message: `must be a whole number from 1 to 1000, got ${batch}`,
    });
  }
  if (issues.length > 0) throw new InvalidStoreInputError('prune options', issues);
  return {
    olderThanMs: options.olderThanMs,
    tags,
    dryRun: options.dryRun === true,
    batchSize: batch,
    shortestMs: Math.min(options.olderThanMs, ...tags.values()),
  };
}

/** The age after which a session with these tags expires: its longest listed tag's, else the default. */
export function ageFor(policy: Policy, tags: readonly string[]): number {
  const listed = tags.flatMap((tag) =>
    policy.tags.has(tag) ? [policy.tags.get(tag) as number] : [],
  );
  return listed.length > 0 ? Math.max(...listed) : policy.olderThanMs;
}

/** A session row's tags (`tags_json`), an unreadable value read as none. */
export function tagsOf(json: string | null): string[] {
  if (!json) return [];
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? value.filter((t): t is string => typeof t === 'string') : [];
  } catch {
    return [];
  }
}
