import { fileURLToPath } from 'node:url';
import { describeResponseId } from '../../conformance/test/response-id-suite.js';
import { OpenAIAdapter } from '../src/index.js';

describeResponseId({
  model: 'openai:gpt-5',
  fixturesDir: fileURLToPath(new URL('./fixtures', import.meta.url)),
  createAdapter: (config) => new OpenAIAdapter(config),
  ids: {
    text: 'chatcmpl-Conformance0001',
    textStream: 'chatcmpl-Conformance0016',
  },
});
