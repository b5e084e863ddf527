import { isAbsolute, resolve } from 'node:path';
import { sqliteStoreFile } from '@yourtool/store/listing';
import { DEFAULT_STORE_URL } from './command-options.js';
import type { CliIo } from './process-io.js';

// Which store a command uses, without loading the store: `sessions list` decides from the URL
// alone whether it lists a SQLite file directly (docs/decisions/0197).

/**
 * The store URL a command uses: `--store`, else `$YOURTOOL_STORE`, else
 * {@link DEFAULT_STORE_URL}; a relative SQLite path is taken from `io.cwd`. A URL of no store is
 * returned as it is (opening it says what is wrong).
 */
export function storeUrlOf(option: string | undefined, io: CliIo): string {
  const url = option ?? io.env.YOURTOOL_STORE ?? DEFAULT_STORE_URL;
  const file = sqliteStoreFile(url);
  if (file === undefined || file === ':memory:' || isAbsolute(file)) return url;
  return `sqlite:${resolve(io.cwd, file)}`;
}
