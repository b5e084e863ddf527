import { InvalidArgumentError, Option } from 'commander';

// The options several commands share, as commander builds them. Only commander is imported
// here: the program defines every command with these before any command's module is loaded.

/** The store URL used when neither `--store` nor `YOURTOOL_STORE` names one. */
export const DEFAULT_STORE_URL = 'sqlite:./yourtool.db';

/** `--store <url>`. */
export const storeOption = () =>
  new Option(
    '--store <url>',
    `session store: sqlite:<file> or postgres://... (default $YOURTOOL_STORE, else ${DEFAULT_STORE_URL})`,
  );

/** `--models <file>`. */
export const modelsOption = () =>
  new Option('--models <file>', 'models.yaml (default $YOURTOOL_MODELS, else ./models.yaml)');

/** `--routing <file>`. */
export const routingOption = () =>
  new Option(
    '--routing <file>',
    'routing.yaml (default $YOURTOOL_ROUTING, else ./routing.yaml if present)',
  );

/** `--json`. */
export const jsonOption = () => new Option('--json', 'print JSON instead of text');

/** `--create`. */
export const createOption = () =>
  new Option(
    '--create',
    'make the store if it is missing, add the yourtool tables to a database without them, upgrade an older store (without it, only an existing store at the current schema is used)',
  );

/** Parses a count option (`--limit <n>`): a whole number of 1 or more. */
export function positiveInteger(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1)
    throw new InvalidArgumentError('must be a whole number of 1 or more');
  return n;
}
