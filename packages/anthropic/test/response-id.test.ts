import { fileURLToPath } from 'node:url';
import { describeResponseId } from '../../conformance/test/response-id-suite.js';
import { AnthropicAdapter } from '../src/index.js';

describeResponseId({
  model: 'anthropic:claude-sonnet-4-6',
  fixturesDir: fileURLToPath(new URL('./fixtures', import.meta.url)),
  createAdapter: (config) => new AnthropicAdapter(config),
  ids: {
    text: 'msg_01ConformanceFixture0001',
    textStream: 'msg_01ConformanceFixture0003',
  },
});
