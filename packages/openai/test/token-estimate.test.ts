import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createMessage, type Message, newSessionId, newToolUseId } from '@yourtool/core';
import { assistantTestMetadata as meta } from '@yourtool/testkit';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { expect, it } from 'vitest';
import { OpenAIAdapter } from '../src/index.js';

/**
 * estimateInputTokens uses core's heuristic, not a tokenizer (decision 0044). This checks it
 * against OpenAI's o200k encoding (gpt-tokenizer, a dev dependency only) on a mixed agent
 * history: prose, TypeScript source, markdown and tool-call JSON, with OpenAI's chat framing of
 * about 3 tokens per message.
 */
it('estimateInputTokens stays within ±10% of o200k on a mixed 300-message history', () => {
  const read = (dir: string, ext: string) => {
    const path = fileURLToPath(new URL(dir, import.meta.url));
    return readdirSync(path)
      .filter((f) => f.endsWith(ext))
      .map((f) => readFileSync(`${path}/${f}`, 'utf8'));
  };
  const code = read('../src/codec/', '.ts');
  const docs = read('../../../docs/decisions/', '.md');
  const prose = docs.flatMap((d) => d.split(/\n\s*\n/)).filter((p) => p.length > 200);
  const session_id = newSessionId();
  const metadata = meta('openai:gpt-5');
  const messages: Message[] = [];
  for (let i = 0; messages.length < 300; i++) {
    const id = newToolUseId();
    messages.push(
      createMessage({
        session_id,
        role: 'user',
        content: [{ type: 'text', text: prose[i % prose.length]! }],
      }),
      createMessage({
        session_id,
        role: 'assistant',
        content: [
          { type: 'text', text: prose[(i * 7) % prose.length]!.slice(0, 300) },
          {
            type: 'tool_use',
            id,
            name: 'read_file',
            input: { path: `src/file${i}.ts`, lines: [1, 200] },
          },
        ],
        metadata,
      }),
      createMessage({
        session_id,
        role: 'tool',
        content: [
          {
            type: 'tool_result',
            tool_use_id: id,
            is_error: false,
            content: [
              { type: 'text', text: i % 2 ? code[i % code.length]! : docs[i % docs.length]! },
            ],
          },
        ],
        metadata: { parent_tool_use_id: id },
      }),
    );
  }
  const wireText = (m: Message) =>
    m.content
      .map((b) =>
        b.type === 'text'
          ? b.text
          : b.type === 'tool_use'
            ? b.name + JSON.stringify(b.input)
            : b.type === 'tool_result'
              ? b.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n')
              : '',
      )
      .join('');
  // documents may quote special tokens (`<|im_end|>`): count them as the plain text they are
  const reference = messages.reduce(
    (sum, m) => sum + 3 + countTokens(wireText(m), { disallowedSpecial: new Set() }),
    3,
  );
  const estimate = new OpenAIAdapter({ api_key: 'sk-test-0000000000000000' }).estimateInputTokens(
    messages,
    [],
    null,
  );
  const error = (estimate - reference) / reference;
  // the figures go in the assertion message, not to the console (the setup file forbids it)
  expect(
    Math.abs(error),
    `${messages.length} messages: o200k ${reference}, estimate ${estimate} (${(error * 100).toFixed(1)}%)`,
  ).toBeLessThanOrEqual(0.1);
});
