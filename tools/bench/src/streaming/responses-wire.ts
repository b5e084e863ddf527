/**
 * The long response in the OpenAI Responses API's SSE format, as `POST /responses` with
 * `stream: true` sends it for gpt-5 called statelessly (`store: false`,
 * `include: ["reasoning.encrypted_content"]`), shaped after the recorded fixtures in
 * packages/openai/test/fixtures-responses: every event named (`event:` line) and numbered
 * (`sequence_number` from 0), every item-scoped event carrying its `item_id` and
 * `output_index`, deltas padded with an `obfuscation` string, and the final
 * `response.completed` carrying the whole response (every output item, usage).
 */
import { BENCH_TOOLS, prng } from '../lib/session.js';
import { expectedOf, type Plan, sse, type WireStream } from './wire-plan.js';

const RESPONSE_ID = 'resp_0bench5e0bench5e0bench5e0bench5e0bench5e0bench5e';
const REASONING_ID = 'rs_0bench5e1bench5e1bench5e1bench5e1bench5e1bench5e1';
const MESSAGE_ID = 'msg_0bench5e2bench5e2bench5e2bench5e2bench5e2bench5e2';
const ENCRYPTED_REASONING = `gAAAAABpBench${'Q2lwaGVydGV4dE9mVGhlUmVhc29uaW5n'.repeat(24)}`;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** The `response` object of the lifecycle events (`output` and `usage` filled in at the end). */
function responseObject(
  status: 'in_progress' | 'completed',
  output: unknown[],
  usage: Record<string, unknown> | null,
): Record<string, unknown> {
  return {
    id: RESPONSE_ID,
    object: 'response',
    created_at: 1767225600,
    status,
    background: false,
    completed_at: status === 'completed' ? 1767225609 : null,
    error: null,
    incomplete_details: null,
    instructions: null,
    max_output_tokens: 64_000,
    max_tool_calls: null,
    model: 'gpt-5-2025-08-07',
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    prompt_cache_key: null,
    reasoning: { effort: 'medium', summary: null },
    safety_identifier: null,
    service_tier: status === 'completed' ? 'default' : 'auto',
    store: false,
    temperature: 1,
    text: { format: { type: 'text' }, verbosity: 'medium' },
    tool_choice: 'auto',
    tools: BENCH_TOOLS.map((t) => ({
      type: 'function',
      description: t.description,
      name: t.name,
      parameters: t.input_schema,
      strict: false,
    })),
    top_logprobs: 0,
    top_p: 1,
    truncation: 'disabled',
    usage,
    user: null,
    metadata: {},
  };
}

/** Appends numbered SSE events and pads deltas with `obfuscation`, as the API does. */
interface Emitter {
  push: (type: string, body: Record<string, unknown>) => void;
  obfuscation: () => string;
}

function emitter(events: string[]): Emitter {
  const random = prng(11);
  let sequence = 0;
  return {
    push: (type, body) => {
      events.push(sse(type, { type, ...body, sequence_number: sequence++ }));
    },
    obfuscation: () => {
      let out = '';
      for (let n = 2 + Math.floor(random() * 14); n > 0; n--) {
        out += ALPHABET[Math.floor(random() * ALPHABET.length)];
      }
      return out;
    },
  };
}

/** The message item at `output_index` 1, one `output_text.delta` per delta; its final form. */
function messageItem({ push, obfuscation }: Emitter, deltas: string[]): Record<string, unknown> {
  const text = deltas.join('');
  const part = (whole: string) => ({
    type: 'output_text',
    annotations: [],
    logprobs: [],
    text: whole,
  });
  const inMessage = { item_id: MESSAGE_ID, output_index: 1 };
  const message = (status: string, content: unknown[]) => ({
    id: MESSAGE_ID,
    type: 'message',
    status,
    content,
    role: 'assistant',
  });
  push('response.output_item.added', { output_index: 1, item: message('in_progress', []) });
  push('response.content_part.added', { ...inMessage, content_index: 0, part: part('') });
  for (const delta of deltas) {
    push('response.output_text.delta', {
      ...inMessage,
      content_index: 0,
      delta,
      logprobs: [],
      obfuscation: obfuscation(),
    });
  }
  push('response.output_text.done', { ...inMessage, content_index: 0, text, logprobs: [] });
  push('response.content_part.done', { ...inMessage, content_index: 0, part: part(text) });
  const done = message('completed', [part(text)]);
  push('response.output_item.done', { output_index: 1, item: done });
  return done;
}

/** The function-call item of tool `t` at `output_index` 2 + t, fragment by fragment. */
function functionCallItem(
  { push, obfuscation }: Emitter,
  tool: Plan['tools'][number],
  t: number,
): Record<string, unknown> {
  const output_index = 2 + t;
  const id = `fc_0bench5e${t}${'bench5e3'.repeat(5)}`;
  const call = (status: string, args: string) => ({
    id,
    type: 'function_call',
    status,
    arguments: args,
    call_id: `call_BenchTool${String(t).padStart(11, '0')}`,
    name: tool.name,
  });
  push('response.output_item.added', { output_index, item: call('in_progress', '') });
  for (const delta of tool.fragments) {
    push('response.function_call_arguments.delta', {
      item_id: id,
      output_index,
      delta,
      obfuscation: obfuscation(),
    });
  }
  const args = tool.fragments.join('');
  push('response.function_call_arguments.done', { item_id: id, output_index, arguments: args });
  const done = call('completed', args);
  push('response.output_item.done', { output_index, item: done });
  return done;
}

/**
 * The Responses API stream of `p`: `response.created`, `response.in_progress`, a reasoning item
 * (encrypted content only, no summary: none was asked for), the message item
 * (`content_part.added`, one `output_text.delta` per text delta, `output_text.done`,
 * `content_part.done`, `output_item.done`), one function-call item per tool call (one
 * `function_call_arguments.delta` per fragment, `function_call_arguments.done`,
 * `output_item.done`), and `response.completed` with the whole output and usage.
 */
export function openAIResponses(p: Plan): WireStream {
  const events: string[] = [];
  const emit = emitter(events);
  emit.push('response.created', { response: responseObject('in_progress', [], null) });
  emit.push('response.in_progress', { response: responseObject('in_progress', [], null) });
  const reasoning = {
    id: REASONING_ID,
    type: 'reasoning',
    summary: [],
    encrypted_content: ENCRYPTED_REASONING,
  };
  emit.push('response.output_item.added', {
    output_index: 0,
    item: { id: REASONING_ID, type: 'reasoning', summary: [] },
  });
  emit.push('response.output_item.done', { output_index: 0, item: reasoning });
  const message = messageItem(emit, p.deltas);
  const calls = p.tools.map((tool, t) => functionCallItem(emit, tool, t));
  emit.push('response.completed', {
    response: responseObject('completed', [reasoning, message, ...calls], {
      input_tokens: 1200,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 25_000,
      output_tokens_details: { reasoning_tokens: 320 },
      total_tokens: 26_200,
    }),
  });
  return {
    provider: 'openai-responses',
    contentType: 'text/event-stream',
    events,
    dataEvents: events.length,
    expected: expectedOf(p, false),
  };
}
