import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { type BedrockFrame, encodeBedrockFrame } from '@yourtool/wire-formats';
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

/** The suffix of a binary event-stream fixture (Bedrock's ConverseStream), one frame a line. */
export const EVENTSTREAM_FIXTURE_SUFFIX = '.eventstream.jsonl';

/**
 * One line of an event-stream fixture: an event (`{"event":"contentBlockDelta","payload":{...}}`),
 * an exception (`{"exception":"throttlingException","payload":{"message":"..."}}`), or bytes
 * sent exactly as given (`{"raw":"<base64>"}`: a damaged or cut frame).
 */
export type EventStreamFixtureLine = BedrockFrame | { readonly raw: string };

const isPayload = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** Encodes one fixture line into the bytes of its frame; throws a message naming what is wrong. */
export function eventStreamLineBytes(line: unknown): Uint8Array {
  if (!isPayload(line)) throw new Error('a line must be a JSON object');
  if (typeof line.raw === 'string') return new Uint8Array(Buffer.from(line.raw, 'base64'));
  if (!isPayload(line.payload)) throw new Error('"payload" must be a JSON object');
  if (typeof line.event === 'string') {
    return encodeBedrockFrame({ event: line.event, payload: line.payload });
  }
  if (typeof line.exception === 'string') {
    return encodeBedrockFrame({ exception: line.exception, payload: line.payload });
  }
  throw new Error('a line needs "event" or "exception" (with "payload"), or "raw"');
}

/** Reads an event-stream fixture: one frame per non-empty line, each encoded to its bytes. */
function eventStreamChunks(file: string): Uint8Array[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((line, i) => [line.trim(), i + 1] as const)
    .filter(([line]) => line !== '')
    .map(([line, number]) => {
      try {
        return eventStreamLineBytes(JSON.parse(line));
      } catch (error) {
        throw new FixtureError(`${file}:${number}`, (error as Error).message);
      }
    });
}

interface StreamMeta {
  status?: number;
  headers?: Record<string, string>;
  ending?: StreamEnding;
  delayMs?: number;
  delaysMs?: number[];
}

/** The sidecar `<base>.meta.json` of a stream, or no settings. */
function readMeta(base: string): StreamMeta {
  const metaFile = `${base}.meta.json`;
  return (existsSync(metaFile) ? readJson(metaFile) : {}) as StreamMeta;
}

/** A stream's ending and pauses, as the sidecar gives them. */
function streamTiming(meta: StreamMeta) {
  return {
    ...(meta.ending ? { ending: meta.ending } : {}),
    ...(meta.delayMs ? { delayMs: meta.delayMs } : {}),
    ...(meta.delaysMs ? { delaysMs: meta.delaysMs } : {}),
  };
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
 * - `*.ndjson`: a recorded `application/x-ndjson` body;
 * - `*.eventstream.jsonl`: a binary `application/vnd.amazon.eventstream` body (Bedrock's
 *   ConverseStream), written one frame per line ({@link EventStreamFixtureLine}) and encoded to
 *   frames here, each sent as a chunk of its own.
 *
 * A stream may have a sidecar `<name>.meta.json` with `status`, `headers`, `ending`
 * (`end`, `destroy`, `close`, `stall`), `delayMs` (after each chunk) and `delaysMs` (after each
 * chunk by position); for `1-stream.eventstream.jsonl` it is `1-stream.meta.json`.
 */
export function loadResponseFile(file: string): ScriptedResponse {
  if (file.endsWith(EVENTSTREAM_FIXTURE_SUFFIX)) {
    const meta = readMeta(file.slice(0, -EVENTSTREAM_FIXTURE_SUFFIX.length));
    return {
      type: 'binary-stream',
      status: meta.status ?? 200,
      headers: meta.headers ?? {},
      contentType: 'application/vnd.amazon.eventstream',
      chunks: eventStreamChunks(file),
      ...streamTiming(meta),
    };
  }
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
    const meta = readMeta(file.slice(0, -ext.length));
    return {
      type: 'stream',
      status: meta.status ?? 200,
      headers: meta.headers ?? {},
      contentType: ext === '.sse' ? 'text/event-stream' : 'application/x-ndjson',
      chunks: ext === '.sse' ? sseChunks(text) : ndjsonChunks(text),
      ...streamTiming(meta),
    };
  }
  throw new FixtureError(
    file,
    `unknown fixture type "${ext}" (use .json, .sse, .ndjson or ${EVENTSTREAM_FIXTURE_SUFFIX})`,
  );
}

/**
 * Loads a fixture directory laid out as
 * `<dir>/<scenario>/<n>-<anything>.<json|sse|ndjson|eventstream.jsonl>`:
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
