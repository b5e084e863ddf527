import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type ExpectedFailure,
  type ExpectedFeatures,
  type ExpectedReply,
  expectedResponses,
} from './expected-responses.js';
import type { ConformanceFixtures } from './fixtures.js';
import type { ScriptedResponse } from './server.js';

/** A provider error response in wire form. */
export interface RenderedError {
  status: number;
  headers?: Record<string, string>;
  body: unknown;
}

/** Puts expected responses into one provider's wire format. */
export interface FixtureRenderer {
  /** How the provider streams: server-sent events or newline-delimited JSON. */
  streamFormat: 'sse' | 'ndjson';
  /** The JSON body of a whole reply. */
  reply(reply: ExpectedReply): unknown;
  /**
   * A streamed reply's chunks as the provider sends them: complete SSE events (ending in a
   * blank line) or NDJSON lines (ending in `\n`). Split text and tool input into at least two
   * pieces. Honour `reply.cut`.
   */
  stream(reply: ExpectedReply): string[];
  /** An error response; the retry hint goes in a header. */
  error(failure: ExpectedFailure): RenderedError;
  /** Response headers on every reply (e.g. a request id header). */
  headers?: Record<string, string>;
}

/**
 * Builds the fixtures of every scenario from {@link expectedResponses}, rendered by the
 * provider's `renderer`: the in-memory form `describeAdapterConformance` takes.
 */
export function renderFixtures(
  renderer: FixtureRenderer,
  features: ExpectedFeatures = {},
): ConformanceFixtures {
  const fixtures: ConformanceFixtures = {};
  for (const [scenario, responses] of Object.entries(expectedResponses(features))) {
    fixtures[scenario] = (responses ?? []).map((expected): ScriptedResponse => {
      switch (expected.kind) {
        case 'hangup':
          return { type: 'hangup' };
        case 'error': {
          const rendered = renderer.error(expected);
          return {
            type: 'json',
            status: rendered.status,
            headers: { ...rendered.headers },
            body: rendered.body,
          };
        }
      }
      if (!expected.stream) {
        return {
          type: 'json',
          status: 200,
          headers: { ...renderer.headers },
          body: renderer.reply(expected),
        };
      }
      return {
        type: 'stream',
        status: 200,
        headers: { ...renderer.headers },
        contentType: renderer.streamFormat === 'sse' ? 'text/event-stream' : 'application/x-ndjson',
        chunks: renderer.stream(expected),
        ...(expected.cut ? { ending: expected.cut.ending } : {}),
      };
    });
  }
  return fixtures;
}

/**
 * Writes fixtures in the layout `loadFixtureDirectory` reads (`<dir>/<scenario>/<n>-response.json`,
 * `<n>-stream.sse` / `.ndjson` with a `.meta.json` sidecar), so they can be reviewed and
 * checked with the provider's own SDK parser. Returns the files written, relative to `dir`.
 *
 * ```ts
 * writeFixtureDirectory('test/fixtures', renderFixtures(myRenderer));
 * ```
 */
export function writeFixtureDirectory(dir: string, fixtures: ConformanceFixtures): string[] {
  const written: string[] = [];
  const write = (relative: string, content: string) => {
    writeFileSync(join(dir, relative), content);
    written.push(relative);
  };
  for (const [scenario, responses] of Object.entries(fixtures)) {
    mkdirSync(join(dir, scenario), { recursive: true });
    (responses ?? []).forEach((response, i) => {
      const n = i + 1;
      switch (response.type) {
        case 'hangup':
          write(join(scenario, `${n}-hangup.json`), `${JSON.stringify({ hangup: true })}\n`);
          return;
        case 'json':
          write(
            join(scenario, `${n}-response.json`),
            `${JSON.stringify(
              {
                status: response.status ?? 200,
                headers: response.headers ?? {},
                body: response.body,
              },
              null,
              2,
            )}\n`,
          );
          return;
        case 'text':
          write(
            join(scenario, `${n}-response.json`),
            `${JSON.stringify(
              {
                status: response.status ?? 200,
                headers: response.headers ?? {},
                rawBody: response.body,
                ...(response.ending ? { ending: response.ending } : {}),
              },
              null,
              2,
            )}\n`,
          );
          return;
        case 'stream': {
          const ext = response.contentType === 'text/event-stream' ? 'sse' : 'ndjson';
          if (response.contentType === 'application/json') {
            throw new Error(
              `fixture ${scenario}/${n}: a JSON body served in pieces has no file form`,
            );
          }
          write(join(scenario, `${n}-stream.${ext}`), response.chunks.join(''));
          const meta = {
            status: response.status ?? 200,
            headers: response.headers ?? {},
            ...(response.ending ? { ending: response.ending } : {}),
            ...(response.delayMs ? { delayMs: response.delayMs } : {}),
            ...(response.delaysMs ? { delaysMs: [...response.delaysMs] } : {}),
          };
          write(join(scenario, `${n}-stream.meta.json`), `${JSON.stringify(meta, null, 2)}\n`);
          return;
        }
      }
    });
  }
  return written;
}
