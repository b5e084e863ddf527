import { fileURLToPath } from 'node:url';
import { describeFixturesParseThroughOpenAISdk } from '../../openai/test/sdk-parse-suite.js';

// vLLM (usage chunk after the finish chunk, reasoning deltas) and Mistral (usage on the finish
// chunk, no stream_options, whole tool calls, nine-character ids): the SDK's own stream helper
// (chat.completions.stream → finalChatCompletion) must accumulate every recorded stream.
describeFixturesParseThroughOpenAISdk({
  title: 'fixtures parse through the official openai SDK (vLLM, Mistral and DeepSeek wire formats)',
  fixturesDirs: ['./fixtures-vllm', './fixtures-mistral', './fixtures-deepseek'].map((d) =>
    fileURLToPath(new URL(d, import.meta.url)),
  ),
  params: { model: 'Qwen/Qwen3-8B', max_tokens: 64 },
});
