import { fileURLToPath } from 'node:url';
import { describeResponseId } from '../../conformance/test/response-id-suite.js';
import { OpenAIResponsesAdapter } from '../src/index.js';

describeResponseId({
  model: 'openai:gpt-5',
  fixturesDir: fileURLToPath(new URL('./fixtures-responses', import.meta.url)),
  createAdapter: (config) => new OpenAIResponsesAdapter(config),
  ids: {
    text: 'resp_3e055be83e055be93e055bea3e055beb3e055bec3e055bed',
    textStream: 'resp_40c7c2ad40c7c2ae40c7c2af40c7c2b040c7c2b140c7c2b2',
  },
});
