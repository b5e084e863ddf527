import type { PruneReport } from '@yourtool/store';
import type { CommandContext } from '../context.js';
import { CliError } from '../io.js';
import { withStore } from './sessions.js';

/** Options of `sessions prune`. */
export interface PruneCommandOptions {
  store?: string;
  /** Idle age, e.g. `30d`, `12h`, `90m`, `2w`. */
  olderThan: string;
  /** `tag=age` pairs (`audit=365d`). */
  tag?: string[];
  dryRun?: boolean;
  batchSize?: number;
  json?: boolean;
}

const UNITS: Readonly<Record<string, number>> = {
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/**
 * An age such as `30d` in ms (units s, m, h, d, w).
 * @throws CliError (exit 2) naming the option and the value.
 */
export function parseAge(value: string, option: string): number {
  const match = /^(\d+)([smhdw])$/.exec(value.trim());
  if (!match) {
    throw new CliError(
      `${option} must be a whole number and a unit (s, m, h, d, w), such as 30d; got "${value}"`,
      2,
    );
  }
  return Number(match[1]) * (UNITS[match[2] as string] as number);
}

function tagAges(pairs: readonly string[]): Record<string, number> {
  const ages: Record<string, number> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at < 1)
      throw new CliError(`--tag must be <tag>=<age>, such as audit=365d; got "${pair}"`, 2);
    ages[pair.slice(0, at)] = parseAge(pair.slice(at + 1), `--tag ${pair.slice(0, at)}`);
  }
  return ages;
}

/** `yourtool sessions prune`: removes the sessions idle longer than the policy says (decision 0184). */
export async function pruneSessionsCommand(
  context: CommandContext,
  options: PruneCommandOptions,
): Promise<void> {
  const olderThanMs = parseAge(options.olderThan, '--older-than');
  const tags = tagAges(options.tag ?? []);
  await withStore(context, options.store, async (store) => {
    const report = await store.pruneSessions({
      olderThanMs,
      tags,
      dryRun: options.dryRun === true,
      ...(options.batchSize !== undefined ? { batchSize: options.batchSize } : {}),
    });
    context.io.stdout.write(
      options.json ? `${JSON.stringify(report, null, 2)}\n` : summary(report),
    );
  });
}

function summary(report: PruneReport): string {
  const { rows } = report;
  const verb = report.dry_run ? 'would remove' : 'removed';
  const lines = [
    `${verb} ${report.sessions} session(s), ${rows.total} row(s): ${rows.messages} message(s), ${rows.tool_calls} tool call(s), ${rows.tool_approvals} tool approval(s), ${rows.budget_rows} budget row(s)`,
  ];
  if (report.skipped_active > 0) {
    lines.push(
      `kept ${report.skipped_active} idle-looking session(s) a turn holds or wrote to meanwhile`,
    );
  }
  if (!report.dry_run) {
    const how = {
      sqlite_incremental_vacuum: 'released to the file system by an incremental vacuum',
      sqlite_free_pages: 'free for reuse inside the file (auto_vacuum is off: VACUUM shrinks it)',
      postgres_row_size: 'of rows, reusable after (auto)vacuum',
      none: '',
    }[report.freed_measure];
    lines.push(
      `freed ${report.freed_bytes} bytes ${how}; ${report.batches} batch(es) in ${report.duration_ms} ms`,
    );
  }
  return `${lines.join('\n')}\n`;
}
