import { fileURLToPath } from 'node:url';
import { loadFixtureDirectory } from '@yourtool/conformance';
import { describeAdapterConformance } from '@yourtool/conformance/vitest';
import {
  GOOGLE_TOOL_ID_RULES,
  GOOGLE_TOOL_NAME_RULES,
  roundTripGeminiContent,
} from '../src/codec.js';
import { GoogleAdapter } from '../src/index.js';
import { geminiWire, recordingFetch } from './wire.js';

describeAdapterConformance({
  name: 'google',
  model: 'google:gemini-3-pro-preview',
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
        api_key: apiKey,
        base_url: baseUrl,
        max_retries: maxRetries,
        timeout_seconds: timeoutSeconds,
        idle_timeout_seconds: idleTimeoutSeconds,
        ...(options ? { options } : {}),
      },
      { logger, retry, fetch: recordingFetch },
    ),
  fixtures: loadFixtureDirectory(fileURLToPath(new URL('./fixtures', import.meta.url))),
  wire: geminiWire,
  toolIdRules: GOOGLE_TOOL_ID_RULES,
  // Gemini takes `.`, `:` and `-` in function names (fs.read goes as it is; a long name is derived)
  toolNameRules: GOOGLE_TOOL_NAME_RULES,
  alternatingRoles: true,
  // Gemini signs thought summaries (thoughtSignature), has no redacted thinking, sends function
  // calls whole, and answers STOP for a stop-sequence hit (mapped as OpenAI's stop is, 0042).
  features: {
    signedThinking: true,
    redactedThinking: false,
    wholeToolCalls: true,
    toolNameWarnings: 'logged',
    callOptions: 'checked',
    configOptions: { known: 'safety_settings' },
  },
  codec: { roundTrip: roundTripGeminiContent },
  live: {
    env: 'GEMINI_API_KEY',
    createAdapter: (apiKey) => new GoogleAdapter({ api_key: apiKey }),
    model: 'google:gemini-2.5-flash',
  },
});
