import type { BlockPart } from '../reply.js';
import { openAIError } from './openai-chat.js';
import {
  fullUsage,
  pad,
  type RenderContext,
  type RenderedStream,
  splitInto,
  sse,
  type WireRenderer,
} from './renderer.js';

/**
 * The OpenAI Responses API (`POST /responses`): a `response` object whose `output` holds
 * `reasoning` items (summary text, `encrypted_content` as the signature; a redacted block is an
 * item with no summary), `message` items with `output_text`, and `function_call` items; with
 * `stream: true`, the named events `response.created` … `response.completed` (or
 * `response.incomplete` for a reply cut at `max_tokens`), as `@yourtool/openai`'s recorded
 * fixtures show them.
 */

type Json = Record<string, unknown>;
type Item = Json & { type: string; id: string };

const CREATED_AT = 1763800000;

function item(block: BlockPart, seq: number, i: number): Item {
  const id = (prefix: string) => `${prefix}_testing${pad(seq)}x${pad(i, 3)}`;
  switch (block.kind) {
    case 'thinking':
      return {
        id: id('rs'),
        type: 'reasoning',
        summary: [{ type: 'summary_text', text: block.text }],
        ...(block.signature ? { encrypted_content: block.signature } : {}),
      };
    case 'redacted_thinking':
      return { id: id('rs'), type: 'reasoning', summary: [], encrypted_content: block.data };
    case 'text':
      return {
        id: id('msg'),
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', annotations: [], logprobs: [], text: block.text }],
      };
    case 'tool_call':
      return {
        id: id('fc'),
        type: 'function_call',
        status: 'completed',
        arguments: JSON.stringify(block.input),
        call_id: block.id ?? id('call'),
        name: block.name,
      };
  }
}

function usageOf(context: RenderContext): Json {
  const usage = fullUsage(context.reply.usage);
  const input = usage.input + usage.cached;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: usage.cached },
    output_tokens: usage.output,
    output_tokens_details: { reasoning_tokens: usage.reasoning ?? 0 },
    total_tokens: input + usage.output,
  };
}

function response(context: RenderContext, output: Item[], done: boolean): Json {
  const cut = context.reply.stopReason === 'max_tokens';
  const status = !done ? 'in_progress' : cut ? 'incomplete' : 'completed';
  return {
    id: `resp_testing${pad(context.seq)}`,
    object: 'response',
    created_at: CREATED_AT,
    status,
    error: null,
    incomplete_details: done && cut ? { reason: 'max_output_tokens' } : null,
    instructions: null,
    model: context.model,
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    store: false,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: [],
    usage: done ? usageOf(context) : null,
    metadata: {},
  };
}

const items = (context: RenderContext) =>
  context.reply.blocks.map((block, i) => item(block, context.seq, i));

/** The events of one output item, from `output_item.added` to `output_item.done`. */
function itemEvents(block: BlockPart, wire: Item, output_index: number): Json[] {
  const item_id = wire.id;
  const events: Json[] = [];
  switch (block.kind) {
    case 'thinking':
    case 'redacted_thinking': {
      const { encrypted_content: _hidden, ...rest } = wire;
      events.push({
        type: 'response.output_item.added',
        output_index,
        item: { ...rest, summary: [] },
      });
      if (block.kind === 'thinking') {
        const at = { item_id, output_index, summary_index: 0 };
        const part = { type: 'summary_text', text: block.text };
        events.push({
          type: 'response.reasoning_summary_part.added',
          ...at,
          part: { ...part, text: '' },
        });
        for (const delta of splitInto(block.text, block.chunks)) {
          events.push({ type: 'response.reasoning_summary_text.delta', ...at, delta });
        }
        events.push({ type: 'response.reasoning_summary_text.done', ...at, text: block.text });
        events.push({ type: 'response.reasoning_summary_part.done', ...at, part });
      }
      break;
    }
    case 'text': {
      const at = { item_id, output_index, content_index: 0 };
      const part = { type: 'output_text', annotations: [], logprobs: [], text: block.text };
      events.push({
        type: 'response.output_item.added',
        output_index,
        item: { ...wire, status: 'in_progress', content: [] },
      });
      events.push({ type: 'response.content_part.added', ...at, part: { ...part, text: '' } });
      for (const delta of splitInto(block.text, block.chunks)) {
        events.push({ type: 'response.output_text.delta', ...at, delta, logprobs: [] });
      }
      events.push({ type: 'response.output_text.done', ...at, text: block.text, logprobs: [] });
      events.push({ type: 'response.content_part.done', ...at, part });
      break;
    }
    case 'tool_call': {
      const args = String(wire.arguments);
      events.push({
        type: 'response.output_item.added',
        output_index,
        item: { ...wire, status: 'in_progress', arguments: '' },
      });
      for (const delta of splitInto(args, block.chunks)) {
        events.push({
          type: 'response.function_call_arguments.delta',
          item_id,
          output_index,
          delta,
        });
      }
      events.push({
        type: 'response.function_call_arguments.done',
        item_id,
        output_index,
        arguments: args,
      });
      break;
    }
  }
  events.push({ type: 'response.output_item.done', output_index, item: wire });
  return events;
}

function stream(context: RenderContext): RenderedStream {
  const chunks: string[] = [];
  let sequence_number = 0;
  const emit = (body: Json) =>
    chunks.push(sse({ ...body, sequence_number: sequence_number++ }, String(body.type)));
  emit({ type: 'response.created', response: response(context, [], false) });
  emit({ type: 'response.in_progress', response: response(context, [], false) });
  const output = items(context);
  context.reply.blocks.forEach((block, i) => {
    const wire = output[i];
    if (wire) for (const event of itemEvents(block, wire, i)) emit(event);
  });
  const final = response(context, output, true);
  emit({
    type: final.status === 'incomplete' ? 'response.incomplete' : 'response.completed',
    response: final,
  });
  return { chunks, closing: 1 };
}

/** The Responses API renderer. */
export const openAIResponsesRenderer: WireRenderer = {
  streamContentType: 'text/event-stream',
  headers: (seq) => ({ 'x-request-id': `req_testing${pad(seq)}` }),
  reply: (context) => response(context, items(context), true),
  stream,
  error: (failure, seq) => openAIError(failure, seq, 'input'),
};
