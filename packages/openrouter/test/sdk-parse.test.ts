import { fileURLToPath } from 'node:url';
import { describeFixturesParseThroughOpenAISdk } from '../../openai/test/sdk-parse-suite.js';

describeFixturesParseThroughOpenAISdk({
  title:
    'fixtures parse through the official openai SDK (OpenRouter speaks its wire format, with extra fields)',
  fixturesDirs: [fileURLToPath(new URL('./fixtures', import.meta.url))],
  params: { model: 'anthropic/claude-sonnet-4.6', max_tokens: 64 },
});
