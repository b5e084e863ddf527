import { fileURLToPath } from 'node:url';
import { describeResponseId } from '../../conformance/test/response-id-suite.js';
import { GoogleAdapter } from '../src/index.js';

describeResponseId({
  model: 'google:gemini-3-pro-preview',
  fixturesDir: fileURLToPath(new URL('./fixtures', import.meta.url)),
  createAdapter: (config) => new GoogleAdapter(config),
  ids: {
    text: 'resp_h7ib56',
    textStream: 'resp_hz2kdr',
  },
});
