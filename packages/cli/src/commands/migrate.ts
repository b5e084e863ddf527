import type { CommandContext } from '../context.js';
import { migrateStore, storeUrlOf } from '../stores.js';

/**
 * `yourtool sessions migrate`: brings the store to the current schema, the one step that
 * upgrades a store besides `chat --create` and `sessions import --create` (commands that read
 * never do). A missing store, or a database without the yourtool tables, is made one only with
 * `--create`. Says what it did on stdout.
 */
export async function migrateSessions(
  context: CommandContext,
  options: { store?: string; create?: boolean },
): Promise<void> {
  const url = storeUrlOf(options.store, context.io);
  const outcome = await migrateStore(url, context, options.create === true);
  const applied = outcome.applied.join(', ');
  const line =
    outcome.action === 'current'
      ? `${outcome.location} is at the current schema: nothing to do`
      : `${outcome.action === 'created' ? 'made a store at' : 'upgraded'} ${outcome.location}: applied ${applied}`;
  context.io.stdout.write(`${line}\n`);
}
