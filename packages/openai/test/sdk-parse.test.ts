import { fileURLToPath } from 'node:url';
import { describeFixturesParseThroughOpenAISdk } from './sdk-parse-suite.js';

describeFixturesParseThroughOpenAISdk({
  title: 'fixtures parse through the official openai SDK',
  fixturesDirs: ['./fixtures', './fixtures-gpt-4.1'].map((d) =>
    fileURLToPath(new URL(d, import.meta.url)),
  ),
  params: { model: 'gpt-5', max_completion_tokens: 64 },
});
