import { fileURLToPath } from 'node:url';
import { loadFixtureDirectory } from '@yourtool/conformance';
import { describeAdapterConformance } from '@yourtool/conformance/vitest';
import { afterAll, expect } from 'vitest';
import {
  GOOGLE_TOOL_ID_RULES,
  GOOGLE_TOOL_NAME_RULES,
  roundTripGeminiContent,
} from '../src/codec.js';
import { GoogleAdapter } from '../src/index.js';
import { geminiWire, recordingFetch } from './wire.js';

/**
 * Gemini on Vertex AI: the conformance suite through the real `@google/genai` with
 * `vertexai: true`, project and location, the loopback server as the Vertex base URL.
 */

const PROJECT = 'conformance-project';
const LOCATION = 'us-central1';
const MODEL = 'gemini-3-pro-preview';

/** Every request the SDK sent in this file: its URL and JSON body. */
const sent: Array<{ url: string; body: Record<string, unknown> }> = [];

/** Records what the SDK sends, then sends it through the inspector's recording fetch. */
const vertexFetch: typeof fetch = (input, init) => {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as object) : {};
  sent.push({ url, body: body as Record<string, unknown> });
  return recordingFetch(input, init);
};

const VERTEX_PATH = new RegExp(
  `^/v1beta1/projects/${PROJECT}/locations/${LOCATION}/publishers/google/models/${MODEL}:(generateContent|streamGenerateContent)$`,
);

type Parts = { contents?: Array<{ parts?: Array<Record<string, { id?: unknown } | undefined>> }> };

// the loopback server plays fixtures whatever the path: every request must have gone to the
// Vertex route, and no function call or response may carry the `id` Vertex refused
afterAll(() => {
  expect(sent.length).toBeGreaterThan(50);
  let calls = 0;
  for (const { url, body } of sent) {
    expect(new URL(url).pathname, url).toMatch(VERTEX_PATH);
    for (const content of (body as Parts).contents ?? []) {
      for (const part of content.parts ?? []) {
        for (const key of ['functionCall', 'functionResponse']) {
          if (part[key] === undefined) continue;
          calls++;
          expect(part[key], `${key} in ${url}`).not.toHaveProperty('id');
        }
      }
    }
  }
  expect(calls, 'the suite replays function calls and responses').toBeGreaterThan(10);
});

describeAdapterConformance({
  name: 'google (Vertex AI)',
  model: `google:${MODEL}`,
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
    new GoogleAdapter(
      {
        // sent by the SDK as x-goog-api-key (no Google auth library, no network); the suite
        // checks it never leaks into errors or logs
        api_key: apiKey,
        base_url: baseUrl,
        max_retries: maxRetries,
        timeout_seconds: timeoutSeconds,
        idle_timeout_seconds: idleTimeoutSeconds,
        options: { vertexai: true, project: PROJECT, location: LOCATION, ...options },
      },
      { logger, retry, fetch: vertexFetch },
    ),
  fixtures: loadFixtureDirectory(fileURLToPath(new URL('./fixtures', import.meta.url))),
  wire: geminiWire,
  toolIdRules: GOOGLE_TOOL_ID_RULES,
  toolNameRules: GOOGLE_TOOL_NAME_RULES,
  // Vertex AI takes no `id` in function calls and responses: they pair by order and name
  wireToolIds: false,
  alternatingRoles: true,
  features: {
    signedThinking: true,
    redactedThinking: false,
    wholeToolCalls: true,
    toolNameWarnings: 'logged',
    callOptions: 'checked',
    configOptions: { known: 'safety_settings' },
  },
  codec: { roundTrip: roundTripGeminiContent },
});
