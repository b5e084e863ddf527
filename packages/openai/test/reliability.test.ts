import { fileURLToPath } from 'node:url';
import { OpenAIAdapter } from '../src/index.js';
import { describeChatCompletionsReliability } from './reliability-suite.js';

describeChatCompletionsReliability({
  name: 'openai',
  model: 'openai:gpt-5',
  fixturesDir: fileURLToPath(new URL('./fixtures', import.meta.url)),
  createAdapter: ({ baseUrl, apiKey, maxRetries, extraHeaders, logger }) =>
    new OpenAIAdapter(
      { api_key: apiKey, base_url: baseUrl, max_retries: maxRetries, extra_headers: extraHeaders },
      { logger, retry: { baseDelayMs: 1, maxDelayMs: 1 } },
    ),
  errorBody: (status, message) => ({
    error: {
      message,
      type: status >= 500 ? 'server_error' : 'invalid_request_error',
      param: null,
      code: status === 401 ? 'invalid_api_key' : null,
    },
  }),
});
