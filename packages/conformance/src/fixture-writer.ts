import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeBedrockFrame } from '@yourtool/wire-formats';
import {
  type ExpectedFailure,
  type ExpectedFeatures,
  type ExpectedReply,
  expectedResponses,
} from './expected-responses.js';
import {
  type ConformanceFixtures,
  EVENTSTREAM_FIXTURE_SUFFIX,
  type EventStreamFixtureLine,
} from './fixtures.js';
import type { ScriptedResponse } from './server.js';

/** A provider error response in wire form. */
export interface RenderedError {
  status: number;
  headers?: Record<string, string>;
  body: unknown;
}

/** Puts expected responses into one provider's wire format. */
export interface FixtureRenderer {
  /**
   * How the provider streams: server-sent events, newline-delimited JSON, or binary
   * event-stream frames (`application/vnd.amazon.eventstream`, Bedrock).
   */
  streamFormat: 'sse' | 'ndjson' | 'eventstream';
  /** The JSON body of a whole reply. */
  reply(reply: ExpectedReply): unknown;
  /**
   * A streamed reply's chunks as the provider sends them: complete SSE events (ending in a
   * blank line), NDJSON lines (ending in `\n`) or, for `eventstream`, one encoded frame each.
   * Split text and tool input into at least two pieces. Honour `reply.cut`.
   */
  stream(reply: ExpectedReply): readonly string[] | readonly Uint8Array[];
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
      return streamResponse(renderer, expected);
    });
  }
  return fixtures;
}

/** A streamed expected reply as the renderer puts it: text chunks, or binary frames. */
function streamResponse(renderer: FixtureRenderer, expected: ExpectedReply): ScriptedResponse {
  const chunks = [...renderer.stream(expected)];
  const common = {
    status: 200,
    headers: { ...renderer.headers },
    ...(expected.cut ? { ending: expected.cut.ending } : {}),
  };
  if (renderer.streamFormat === 'eventstream') {
    const frames = chunks.map((chunk, i) => {
      if (typeof chunk === 'string') {
        throw new Error(`${expected.scenario}: chunk ${i} of an event stream must be bytes`);
      }
      return chunk;
    });
    return {
      type: 'binary-stream',
      contentType: 'application/vnd.amazon.eventstream',
      chunks: frames,
      ...common,
    };
  }
  const texts = chunks.map((chunk, i) => {
    if (typeof chunk !== 'string') {
      throw new Error(`${expected.scenario}: chunk ${i} of a text stream must be a string`);
    }
    return chunk;
  });
  return {
    type: 'stream',
    contentType: renderer.streamFormat === 'sse' ? 'text/event-stream' : 'application/x-ndjson',
    chunks: texts,
    ...common,
  };
}

/** A frame as its fixture line: the event or exception it decodes to, else its raw bytes. */
function eventStreamLine(chunk: Uint8Array): EventStreamFixtureLine {
  try {
    return decodeBedrockFrame(chunk);
  } catch {
    return { raw: Buffer.from(chunk).toString('base64') };
  }
}

/** The sidecar of a stream: status, headers, ending and pauses. */
function streamMeta(response: Extract<ScriptedResponse, { type: 'stream' | 'binary-stream' }>) {
  return {
    status: response.status ?? 200,
    headers: response.headers ?? {},
    ...(response.ending ? { ending: response.ending } : {}),
    ...(response.delayMs ? { delayMs: response.delayMs } : {}),
    ...(response.delaysMs ? { delaysMs: [...response.delaysMs] } : {}),
  };
}

/**
 * Writes fixtures in the layout `loadFixtureDirectory` reads (`<dir>/<scenario>/<n>-response.json`,
 * `<n>-stream.sse` / `.ndjson` / `.eventstream.jsonl` (one frame a line) with a `.meta.json`
 * sidecar), so they can be reviewed and
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
          write(
            join(scenario, `${n}-stream.meta.json`),
            `${JSON.stringify(streamMeta(response), null, 2)}\n`,
          );
          return;
        }
        case 'binary-stream': {
          const lines = response.chunks.map((c) => `${JSON.stringify(eventStreamLine(c))}\n`);
          write(join(scenario, `${n}-stream${EVENTSTREAM_FIXTURE_SUFFIX}`), lines.join(''));
          write(
            join(scenario, `${n}-stream.meta.json`),
            `${JSON.stringify(streamMeta(response), null, 2)}\n`,
          );
          return;
        }
      }
    });
  }
  return written;
}
