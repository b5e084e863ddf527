/**
 * The long response in the OpenAI Responses API's SSE format, as `POST /responses` with
 * `stream: true` sends it for gpt-5 called statelessly (`store: false`,
 * `include: ["reasoning.encrypted_content"]`), rendered by `@yourtool/wire-formats` with the
 * live API's details (decision 0161): every event named and numbered, the full Response object
 * echoing the request's settings and tools, deltas padded with an `obfuscation` string of
 * varying length, and the final `response.completed` carrying every output item and usage.
 */
import { type MessageReply, openAIResponsesFormat } from '@yourtool/wire-formats';
import { BENCH_TOOLS, prng } from '../lib/session.js';
import { expectedOf, type Plan, replyOf, type WireStream } from './wire-plan.js';

const ENCRYPTED_REASONING = `gAAAAABpBench${'Q2lwaGVydGV4dE9mVGhlUmVhc29uaW5n'.repeat(24)}`;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** The ids of the output items: reasoning, message, then one function call per tool. */
function itemId(prefix: 'rs' | 'msg' | 'fc', index: number): string {
  if (prefix === 'rs') return 'rs_0bench5e1bench5e1bench5e1bench5e1bench5e1bench5e1';
  if (prefix === 'msg') return 'msg_0bench5e2bench5e2bench5e2bench5e2bench5e2bench5e2';
  return `fc_0bench5e${index - 2}${'bench5e3'.repeat(5)}`;
}

/** Padding of 2 to 15 random letters and digits a delta, as the API sends. */
function obfuscation(): () => string {
  const random = prng(11);
  return () => {
    let out = '';
    for (let n = 2 + Math.floor(random() * 14); n > 0; n--) {
      out += ALPHABET[Math.floor(random() * ALPHABET.length)];
    }
    return out;
  };
}

/**
 * The Responses API stream of `p`: `response.created`, `response.in_progress`, a reasoning item
 * (encrypted content only, no summary: none was asked for), the message item (one
 * `output_text.delta` per text delta of the plan), one function-call item per tool call (one
 * `function_call_arguments.delta` per fragment), and `response.completed`.
 */
export function openAIResponses(p: Plan): WireStream {
  const { reply, split } = replyOf(p, (t) => `call_BenchTool${String(t).padStart(11, '0')}`);
  const withReasoning: MessageReply = {
    ...reply,
    blocks: [{ kind: 'redacted_thinking', data: ENCRYPTED_REASONING }, ...reply.blocks],
    usage: { ...reply.usage, reasoning_tokens: 320 },
  };
  const format = openAIResponsesFormat({
    responseId: 'resp_0bench5e0bench5e0bench5e0bench5e0bench5e0bench5e',
    createdAt: 1767225600,
    itemId,
    live: {
      maxOutputTokens: 64_000,
      reasoning: { effort: 'medium', summary: null },
      serviceTier: 'default',
      temperature: 1,
      topP: 1,
      topLogprobs: 0,
      truncation: 'disabled',
      verbosity: 'medium',
      secondsToComplete: 9,
      tools: BENCH_TOOLS.map((t) => ({
        type: 'function',
        description: t.description,
        name: t.name,
        parameters: t.input_schema,
        strict: false,
      })),
    },
    obfuscation: obfuscation(),
    split,
  });
  const { chunks } = format.stream({
    reply: withReasoning,
    model: 'gpt-5-2025-08-07',
    seq: 0,
    body: {},
  });
  return {
    provider: 'openai-responses',
    contentType: 'text/event-stream',
    events: [...chunks],
    dataEvents: chunks.length,
    expected: expectedOf(p, false),
  };
}
