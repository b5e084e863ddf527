import { fileURLToPath } from 'node:url';
import { describeResponseId } from '../../conformance/test/response-id-suite.js';
import { OpenRouterAdapter } from '../src/index.js';

describeResponseId({
  model: 'openrouter:anthropic/claude-sonnet-4.6',
  fixturesDir: fileURLToPath(new URL('./fixtures', import.meta.url)),
  createAdapter: (config) => new OpenRouterAdapter(config),
  ids: {
    text: 'gen-1763800000-Conformance0001',
    textStream: 'gen-1763800000-Conformance0017',
  },
});
