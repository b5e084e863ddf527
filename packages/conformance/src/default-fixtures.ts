import type { ScenarioName } from './catalog.js';
import type { ScenarioFixture } from './fixtures.js';

/** Fixtures the suite supplies when an adapter brings none: they look alike on every provider. */
export const DEFAULT_FIXTURES: Partial<Record<ScenarioName, ScenarioFixture>> = {
  'error-network': [{ type: 'hangup' }],
  // A captive portal's redirect: neither a provider error (4xx/5xx) nor a reply.
  'error-other': [
    {
      type: 'text',
      status: 302,
      headers: { 'content-type': 'text/html; charset=utf-8' },
      body: '<html><body>Moved: the network sign-in page has no address for you</body></html>',
    },
  ],
  // A `Connection: close` reply whose body stops before its last chunk, then a clean close.
  'error-network-eof': [
    {
      type: 'stream',
      status: 200,
      headers: { connection: 'close' },
      contentType: 'application/json',
      chunks: ['{"id": "cut-short", "content": ['],
      ending: 'close',
    },
  ],
  'error-malformed-reply': [
    {
      type: 'text',
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: '{"truncated": "the reply stops inside a str',
    },
  ],
};
