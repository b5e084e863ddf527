import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { SessionStore } from '@yourtool/core';
import {
  createRuntime,
  type Runtime,
  type RuntimeOptions,
  readModelsConfig,
} from '@yourtool/runtime';
import type { CommandContext } from './context.js';
import { CliError, type CliIo } from './io.js';

/** Options every command that reads models.yaml takes. */
export interface ModelOptions {
  /** models.yaml (default `$YOURTOOL_MODELS`, else `./models.yaml`). */
  models?: string;
  /** routing.yaml (default `$YOURTOOL_ROUTING`, else `./routing.yaml` when there is one). */
  routing?: string;
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
