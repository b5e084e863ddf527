import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type { Logger, SessionStore } from '@yourtool/core';
import {
  createRuntime,
  type Runtime,
  type RuntimeOptions,
  readModelsConfig,
} from '@yourtool/runtime';
import { parseStoreUrl } from '@yourtool/store';
import { CliError, type CliIo, Secrets } from './io.js';
import { cliLogger, DetectionFailures } from './logger.js';

/** What every command gets: the CLI's streams, the secrets to keep out of them, one logger. */
export interface CommandContext {
  io: CliIo;
  secrets: Secrets;
  /**
   * Warnings and errors of the libraries as one readable line each on stderr
   * (`warning: <message> (<field>: <value>)`), secrets redacted; failed capability detections
   * are kept in `detection` instead.
   */
  logger: Logger;
  /** Models whose capabilities could not be detected, shown where a model is asked for. */
  detection: DetectionFailures;
}

/** A context on `io`, with a stderr logger that redacts every secret the command learns. */
export function commandContext(io: CliIo): CommandContext {
  const secrets = new Secrets();
  const detection = new DetectionFailures();
  const logger = cliLogger(
    (line) => io.stderr.write(line),
    (text) => secrets.redact(text),
    detection,
  );
  return { io, secrets, logger, detection };
}

/** The store URL used when neither `--store` nor `YOURTOOL_STORE` names one. */
export const DEFAULT_STORE_URL = 'sqlite:./yourtool.db';

/** Options every command that reads models.yaml takes. */
export interface ModelOptions {
  /** models.yaml (default `$YOURTOOL_MODELS`, else `./models.yaml`). */
  models?: string;
  /** routing.yaml (default `$YOURTOOL_ROUTING`, else `./routing.yaml` when there is one). */
  routing?: string;
}

/**
 * The store URL a command uses: `--store`, else `$YOURTOOL_STORE`, else
 * {@link DEFAULT_STORE_URL}; a relative SQLite path is taken from `io.cwd`.
 */
export function storeUrlOf(option: string | undefined, io: CliIo): string {
  const url = option ?? io.env.YOURTOOL_STORE ?? DEFAULT_STORE_URL;
  const location = parseStoreUrl(url);
  if (location.dialect !== 'sqlite' || location.filename === ':memory:') return url;
  return isAbsolute(location.filename) ? url : `sqlite:${resolve(io.cwd, location.filename)}`;
}

function readText(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new CliError(
      code === 'ENOENT'
        ? `no ${what} at ${path}: pass --${what.replace('.yaml', '')} <file>`
        : `cannot read ${what} at ${path}: ${(error as Error).message}`,
    );
  }
}

/** The models.yaml and routing.yaml files a command uses (see {@link ModelOptions}). */
export function configFiles(
  options: ModelOptions,
  io: CliIo,
): { models: string; routing: string | null } {
  const models = resolve(io.cwd, options.models ?? io.env.YOURTOOL_MODELS ?? 'models.yaml');
  const routingOption = options.routing ?? io.env.YOURTOOL_ROUTING;
  if (routingOption !== undefined) return { models, routing: resolve(io.cwd, routingOption) };
  const fallback = resolve(io.cwd, 'routing.yaml');
  return { models, routing: existsSync(fallback) ? fallback : null };
}

/** The API keys a models.yaml configures (given, or read from the environment). */
function configuredKeys(text: string, io: CliIo, file: string): string[] {
  try {
    const config = readModelsConfig(text, io.env, file);
    return Object.values(config.adapters).flatMap((entry) => [
      entry.api_key ?? '',
      entry.api_key_env ? (io.env[entry.api_key_env] ?? '') : '',
    ]);
  } catch {
    return []; // createRuntime reports the document's problems, never quoting a key
  }
}

/** Options of {@link openCliRuntime}: what the command adds to the runtime. */
export type CliRuntimeOptions = ModelOptions &
  Pick<RuntimeOptions, 'tools' | 'confirm' | 'systemPrompt' | 'compaction' | 'mcpServers'> & {
    store?: SessionStore | string;
  };

/**
 * `createRuntime` on the command's models.yaml and routing.yaml, with the context's logger; the
 * keys the models configure join the context's secrets.
 */
export async function openCliRuntime(
  options: CliRuntimeOptions,
  context: CommandContext,
): Promise<Runtime> {
  const { io } = context;
  const files = configFiles(options, io);
  const models = readText(files.models, 'models.yaml');
  const routing = files.routing === null ? undefined : readText(files.routing, 'routing.yaml');
  context.secrets.add(...configuredKeys(models, io, files.models));
  return createRuntime({
    models: { file: files.models },
    ...(routing === undefined ? {} : { routing: { file: files.routing as string } }),
    ...(options.store === undefined ? {} : { store: options.store }),
    ...(options.tools ? { tools: options.tools } : {}),
    ...(options.confirm ? { confirm: options.confirm } : {}),
    ...(options.systemPrompt ? { systemPrompt: options.systemPrompt } : {}),
    ...(options.compaction ? { compaction: options.compaction } : {}),
    ...(options.mcpServers ? { mcpServers: options.mcpServers } : {}),
    env: io.env,
    logger: context.logger,
  });
}
