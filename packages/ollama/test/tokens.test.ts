import { readFileSync } from 'node:fs';
import { createMessage, newSessionId } from '@yourtool/core';
import { estimateRequestTokens } from '@yourtool/core/adapter';
import llama2 from 'llama-tokenizer-js';
import llama3 from 'llama3-tokenizer-js';
import { describe, expect, it } from 'vitest';
import { OllamaAdapter } from '../src/index.js';
import { estimateOllamaInputTokens, OLLAMA_TEMPLATE_TOKENS } from '../src/tokens.js';

const prose = readFileSync(
  new URL('../../core/test/fixtures/english-prose.txt', import.meta.url),
  'utf8',
);
const session_id = newSessionId();
const user = (text: string) =>
  createMessage({ session_id, role: 'user', content: [{ type: 'text', text }] });

/**
 * The estimate must not undercount what local models' tokenizers count, or routing lets through
 * prompts that Ollama truncates. Checked against Llama 3 (128k vocabulary, close to OpenAI's
 * encodings) and Llama 2 (32k vocabulary, the heaviest common tokenizer).
 */
describe('estimateOllamaInputTokens', () => {
  const estimate = estimateOllamaInputTokens([user(prose)], [], null);
  const framing = OLLAMA_TEMPLATE_TOKENS.perRequest + OLLAMA_TEMPLATE_TOKENS.perMessage;
  const llama3Count = llama3.encode(prose, { bos: false, eos: false }).length;
  const llama2Count = llama2.encode(prose, false, false).length;

  it('is at or above the Llama 3 and Llama 2 counts of English prose', () => {
    expect(estimate - framing).toBeGreaterThanOrEqual(llama3Count);
    expect(estimate - framing).toBeGreaterThanOrEqual(llama2Count);
  });

  it('errs high by a bounded margin (within +30% of Llama 3)', () => {
    expect((estimate - framing) / llama3Count).toBeLessThan(1.3);
  });

  it('adds template framing per message and tool over core’s heuristic', () => {
    const tool = {
      name: 'read_file',
      description: 'Read a file',
      input_schema: { type: 'object', properties: { path: { type: 'string' } } },
    };
    const messages = [user('Hello there.'), user('Again.')];
    const base = estimateRequestTokens(messages, [tool], 'Be brief.');
    expect(estimateOllamaInputTokens(messages, [tool], 'Be brief.', 1)).toBe(
      base +
        OLLAMA_TEMPLATE_TOKENS.perRequest +
        3 * OLLAMA_TEMPLATE_TOKENS.perMessage +
        OLLAMA_TEMPLATE_TOKENS.perTool,
    );
  });

  it('is what the adapter reports, with the configured factor', () => {
    const messages = [user(prose)];
    expect(new OllamaAdapter().estimateInputTokens(messages, [], null)).toBe(estimate);
    expect(
      new OllamaAdapter({ options: { token_estimate_factor: 1.5 } }).estimateInputTokens(
        messages,
        [],
        null,
      ),
    ).toBe(estimateOllamaInputTokens(messages, [], null, 1.5));
  });
});
