import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import type { ScriptedResponse, StreamEnding } from './server.js';

/** Scripted responses for one scenario, in the order requests will consume them. */
export type ScenarioFixture = ScriptedResponse[];

/** Fixtures by scenario name. */
export type ConformanceFixtures = Partial<Record<string, ScenarioFixture>>;

/** Thrown when a fixture file is missing or malformed; names the file. */
export class FixtureError extends Error {
  constructor(file: string, reason: string) {
    super(`fixture ${file}: ${reason}`);
    this.name = 'FixtureError';
  }
}

/**
 * Splits a recorded SSE body into events (each ending with a blank line), so the server writes
 * and flushes them one by one like a provider does.
 */
export function sseChunks(text: string): string[] {
  return text
    .replace(/\r\n/g, '\n')
    .split(/\n\n+/)
    .map((event) => event.trim())
    .filter((event) => event !== '')
    .map((event) => `${event}\n\n`);
}

/** Splits an NDJSON body into lines (each ending with a newline). */
export function ndjsonChunks(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => `${line}\n`);
}

interface StreamMeta {
  status?: number;
  headers?: Record<string, string>;
  ending?: StreamEnding;
  delayMs?: number;
  delaysMs?: number[];
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new FixtureError(file, `not valid JSON (${(error as Error).message})`);
  }
}

/**
 * Loads one recorded response:
 * - `*.json`: `{ "status", "headers", "body" }` (a JSON response), or `{ "status", "headers",
 *   "rawBody" }` for a body sent verbatim (with an optional `ending`, as a stream's), or
 *   `{ "hangup": true }` for a dropped connection;
 * - `*.sse`: a recorded `text/event-stream` body;
 * - `*.ndjson`: a recorded `application/x-ndjson` body.
 *
 * A stream may have a sidecar `<name>.meta.json` with `status`, `headers`, `ending`
 * (`end`, `destroy`, `close`, `stall`), `delayMs` (after each chunk) and `delaysMs` (after each
 * chunk by position).
 */
export function loadResponseFile(file: string): ScriptedResponse {
  const ext = extname(file);
  if (ext === '.json') {
    const data = readJson(file) as Record<string, unknown>;
    if (data.hangup === true) return { type: 'hangup' };
    const status = typeof data.status === 'number' ? data.status : 200;
    const headers = (data.headers ?? {}) as Record<string, string>;
    if (typeof data.rawBody === 'string') {
      const ending = data.ending as StreamEnding | undefined;
      return { type: 'text', status, headers, body: data.rawBody, ...(ending ? { ending } : {}) };
    }
    if (!('body' in data)) throw new FixtureError(file, 'needs "body", "rawBody" or "hangup"');
    return { type: 'json', status, headers, body: data.body };
  }
  if (ext === '.sse' || ext === '.ndjson') {
    const text = readFileSync(file, 'utf8');
    const metaFile = file.slice(0, -ext.length) + '.meta.json';
    const meta = (existsSync(metaFile) ? readJson(metaFile) : {}) as StreamMeta;
    return {
      type: 'stream',
      status: meta.status ?? 200,
      headers: meta.headers ?? {},
      contentType: ext === '.sse' ? 'text/event-stream' : 'application/x-ndjson',
      chunks: ext === '.sse' ? sseChunks(text) : ndjsonChunks(text),
      ...(meta.ending ? { ending: meta.ending } : {}),
      ...(meta.delayMs ? { delayMs: meta.delayMs } : {}),
      ...(meta.delaysMs ? { delaysMs: meta.delaysMs } : {}),
    };
  }
  throw new FixtureError(file, `unknown fixture type "${ext}" (use .json, .sse or .ndjson)`);
}

/**
 * Loads a fixture directory laid out as `<dir>/<scenario>/<n>-<anything>.<json|sse|ndjson>`:
 * one folder per scenario, files in name order, one file per response (sidecar
 * `*.meta.json` files excepted).
 */
export function loadFixtureDirectory(dir: string): ConformanceFixtures {
  const fixtures: ConformanceFixtures = {};
  for (const scenario of readdirSync(dir).sort()) {
    const folder = join(dir, scenario);
    if (!statSync(folder).isDirectory()) continue;
    const files = readdirSync(folder)
      .filter((name) => !name.endsWith('.meta.json') && !name.startsWith('.'))
      .sort();
    fixtures[scenario] = files.map((name) => loadResponseFile(join(folder, name)));
  }
  return fixtures;
}

/** The file name without directory and extension (for messages). */
export function fixtureName(file: string): string {
  return basename(file, extname(file));
}
