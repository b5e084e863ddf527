import { fileURLToPath } from 'node:url';
import { loadFixtureDirectory } from '@yourtool/conformance';
import { describeAdapterConformance } from '@yourtool/conformance/vitest';
import { ANTHROPIC_TOOL_ID_RULES } from '@yourtool/core';
import { afterAll, expect } from 'vitest';
import { roundTripAnthropicContent } from '../src/codec.js';
import { VertexAnthropicAdapter } from '../src/index.js';
import { anthropicWire } from './wire.js';

const PROJECT = 'conformance-project';
const REGION = 'us-east5';
const MODEL = 'claude-sonnet-4-5@20250929';

/** Every request the Vertex SDK sent in this file: its URL and body. */
const sent: Array<{ url: string; body: Record<string, unknown> }> = [];

/** The runtime's fetch: records what the Vertex SDK sends, then sends it. */
const recordingFetch: typeof fetch = async (input, init) => {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  const raw = init?.body;
  const text =
    typeof raw === 'string' ? raw : raw instanceof Uint8Array ? Buffer.from(raw).toString() : '';
  sent.push({ url, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) });
  return fetch(input, init);
};

const VERTEX_PATH = new RegExp(
  `^/projects/${PROJECT}/locations/${REGION}/publishers/anthropic/models/${MODEL}:(rawPredict|streamRawPredict)$`,
);

// the suite's loopback server plays fixtures whatever the path: this checks the path and body
// of every request were Vertex's (model in the URL, anthropic_version in the body)
afterAll(() => {
  expect(sent.length).toBeGreaterThan(50);
  for (const { url, body } of sent) {
    const match = VERTEX_PATH.exec(new URL(url).pathname);
    expect(match, url).not.toBeNull();
    expect(match?.[1], url).toBe(body.stream === true ? 'streamRawPredict' : 'rawPredict');
    expect(body.anthropic_version, url).toBe('vertex-2023-10-16');
    expect(body, url).not.toHaveProperty('model');
  }
});

describeAdapterConformance({
  name: 'vertex-anthropic',
  model: `vertex-anthropic:${MODEL}`,
  createAdapter: ({
    baseUrl,
    apiKey,
    maxRetries,
    logger,
    retry,
    timeoutSeconds,
    idleTimeoutSeconds,
    options,
  }) =>
    new VertexAnthropicAdapter(
      {
        // an OAuth access token, sent as the bearer token: the suite checks it never leaks
        api_key: apiKey,
        base_url: baseUrl,
        max_retries: maxRetries,
        timeout_seconds: timeoutSeconds,
        idle_timeout_seconds: idleTimeoutSeconds,
        options: { project: PROJECT, region: REGION, ...options },
      },
      { logger, retry, fetch: recordingFetch },
    ),
  fixtures: loadFixtureDirectory(fileURLToPath(new URL('./fixtures', import.meta.url))),
  wire: anthropicWire,
  toolIdRules: ANTHROPIC_TOOL_ID_RULES,
  alternatingRoles: true,
  features: {
    signedThinking: true,
    redactedThinking: true,
    // vertex-2023-10-16 follows the 2023-06-01 Messages API, which takes sampling parameters
    temperature: 'sent',
    toolNameWarnings: 'logged',
    callOptions: 'checked',
    configOptions: { known: 'prompt_caching' },
  },
  codec: { roundTrip: roundTripAnthropicContent },
});
