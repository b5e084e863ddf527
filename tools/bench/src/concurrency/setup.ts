/**
 * What a concurrency scenario process sets up once and closes at the end: the paced server
 * process, the store (a fresh SQLite file, or a PostgreSQL schema of its own, dropped after),
 * one `SessionManager` on it, and the raw SDK's client on the same server.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Anthropic from '@anthropic-ai/sdk';
import { defaultPriceTable } from '@yourtool/pricing';
import { SessionManager, ToolRegistry } from '@yourtool/session';
import { openStore, type SqlSessionStore } from '@yourtool/store';
import pg from 'pg';
import { anthropicBenchRouter, rawBenchClient } from '../lib/anthropic-router.js';
import { postgresUrl } from '../store/bench.js';
import { type PacedServer, startPacedServer } from './paced-server.js';
import { Barrier } from './probe.js';
import { type BarrierHolder, waitForAllTool } from './sides.js';

/**
 * How long the store's pool keeps an idle connection. The sides alternate run by run, so our
 * pool sits idle through a raw run and the sessions' creation (over pg's 10 s default): its
 * connections were closed and the next run's first turns paid for new ones, which a service
 * under steady load does not (decision 0202).
 */
const POOL_IDLE_MS = 120_000;

/** Where the scenario's store lives. */
export type ConcurrencyDb = 'sqlite' | 'postgres';

/** Everything a concurrency scenario process runs on. */
export interface ConcurrencySetup {
  server: PacedServer;
  store: SqlSessionStore;
  manager: SessionManager;
  client: Anthropic;
  /** The current run's tool barrier, renewed by each run (the tool reads it from here). */
  holder: BarrierHolder;
  /** The temporary directory (SQLite file, workspace path). */
  dir: string;
  close(): Promise<void>;
}

async function dropSchema(url: string, schema: string): Promise<void> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`drop schema if exists "${schema}" cascade`);
  await admin.end();
}

/** Starts the server and opens the store, our manager and the raw client. */
export async function setUpConcurrency(db: ConcurrencyDb, tag: string): Promise<ConcurrencySetup> {
  const server = await startPacedServer();
  const dir = mkdtempSync(join(tmpdir(), `yourtool-bench-${tag}-`));
  const url = db === 'postgres' ? postgresUrl() : '';
  const schema = `bench_${process.pid}_${tag}`;
  const store =
    db === 'sqlite'
      ? await openStore(`sqlite:${join(dir, 'sessions.db')}`)
      : await openStore(url, { schema, pool: { idleTimeoutMillis: POOL_IDLE_MS } });
  const router = anthropicBenchRouter(server.url);
  const holder: BarrierHolder = { barrier: new Barrier(0) };
  const manager = new SessionManager({
    store,
    router,
    pricing: defaultPriceTable(),
    tools: new ToolRegistry([waitForAllTool(holder)]),
  });
  const client = rawBenchClient(server.url);
  return {
    server,
    store,
    manager,
    client,
    holder,
    dir,
    close: async () => {
      await router.registry.close();
      await store.close();
      await server.close();
      if (db === 'postgres') await dropSchema(url, schema);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
