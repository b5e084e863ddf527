import { fileURLToPath } from 'node:url';
// The Chat Completions transport is the openai package's: reuse its reliability suite.
import { describeChatCompletionsReliability } from '../../openai/test/reliability-suite.js';
import { OpenRouterAdapter } from '../src/index.js';

describeChatCompletionsReliability({
  name: 'openrouter',
  model: 'openrouter:anthropic/claude-sonnet-4.6',
  fixturesDir: fileURLToPath(new URL('./fixtures', import.meta.url)),
  createAdapter: ({ baseUrl, apiKey, maxRetries, extraHeaders, logger }) =>
    new OpenRouterAdapter(
      { api_key: apiKey, base_url: baseUrl, max_retries: maxRetries, extra_headers: extraHeaders },
      { logger, retry: { baseDelayMs: 1, maxDelayMs: 1 } },
    ),
  errorBody: (status, message) => ({ error: { code: status, message } }),
});
