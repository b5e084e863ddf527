import type { BlockPart } from '../reply.js';
import { type OpenAIErrorOptions, openAIError } from './openai-chat.js';
import {
  fullUsage,
  pad,
  type RenderContext,
  type RenderedStream,
  type Splitter,
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

/** The kinds of delta event a Responses stream sends. */
export type ResponsesDeltaKind = 'text' | 'reasoning' | 'arguments';

const CREATED_AT = 1763800000;

/**
 * The request settings a live Response object echoes, with which {@link ResponsesWireOptions}
 * renders every field of it in the API's order (and message items with `content` before
 * `role`), as a recording shows them.
 */
export interface ResponsesLiveShape {
  readonly maxOutputTokens: number | null;
  /** `reasoning`: `{ effort, summary }`. */
  readonly reasoning: Readonly<Json>;
  /** `service_tier` once completed (`auto` while in progress). */
  readonly serviceTier: string;
  readonly temperature: number;
  readonly topP: number;
  readonly topLogprobs: number;
  readonly truncation: string;
  /** `text.format`; default `{ type: 'text' }`. */
  readonly textFormat?: Readonly<Json>;
  /** `text.verbosity`. */
  readonly verbosity: string;
  /** `completed_at`, as seconds after `created_at`. */
  readonly secondsToComplete: number;
  /** `tools`, the function tools the request declared, in wire form. Default none. */
  readonly tools?: readonly Readonly<Json>[];
}

/**
 * How a Responses reply departs from the defaults: the details a fixture recorded from the live
 * API shows, for a test that must reproduce its bytes. Every option is off by default.
 */
export interface ResponsesWireOptions {
  /** The response's `id`. Default `resp_testing<seq>`. */
  readonly responseId?: string;
  /** The response's `created_at`, in Unix seconds. Default 1763800000. */
  readonly createdAt?: number;
  /** The id of the output item at `index`. Default `<prefix>_testing<seq>x<index>`. */
  readonly itemId?: (prefix: 'rs' | 'msg' | 'fc', index: number) => string;
  /** Render the full Response object as the live API sends it, echoing these settings. */
  readonly live?: ResponsesLiveShape;
  /** Report `input_tokens_details.cache_write_tokens` too. */
  readonly cacheWriteTokens?: boolean;
  /**
   * The `obfuscation` padding the live API adds to each delta event: called once per delta, in
   * the order they are sent, with the kind of delta it pads. Default none.
   */
  readonly obfuscation?: (delta: ResponsesDeltaKind) => string;
  /** Where streamed text, summaries and arguments are split. Default {@link splitInto}. */
  readonly split?: Splitter;
  /** Headers on every reply and error, in place of `x-request-id: req_testing<seq>`. */
  readonly headers?: Readonly<Record<string, string>>;
  /** How an error departs from the defaults (its `headers` are the ones above). */
  readonly error?: Omit<OpenAIErrorOptions, 'headers'>;
}

function item(
  block: BlockPart,
  i: number,
  context: RenderContext,
  options: ResponsesWireOptions,
): Item {
  const id = (prefix: 'rs' | 'msg' | 'fc' | 'call') =>
    prefix !== 'call' && options.itemId
      ? options.itemId(prefix, i)
      : `${prefix}_testing${pad(context.seq)}x${pad(i, 3)}`;
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
    case 'text': {
      const content = [{ type: 'output_text', annotations: [], logprobs: [], text: block.text }];
      const base = { id: id('msg'), type: 'message', status: 'completed' };
      return options.live
        ? { ...base, content, role: 'assistant' }
        : { ...base, role: 'assistant', content };
    }
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

function usageOf(context: RenderContext, options: ResponsesWireOptions): Json {
  const usage = fullUsage(context.reply.usage);
  const input = usage.input + usage.cached;
  return {
    input_tokens: input,
    input_tokens_details: {
      cached_tokens: usage.cached,
      ...(options.cacheWriteTokens ? { cache_write_tokens: usage.cacheWrite } : {}),
    },
    output_tokens: usage.output,
    output_tokens_details: { reasoning_tokens: usage.reasoning ?? 0 },
    total_tokens: input + usage.output,
  };
}

/** The fields of a response object in the API's order; `live` adds the request's settings. */
function response(
  context: RenderContext,
  options: ResponsesWireOptions,
  output: Item[],
  done: boolean,
): Json {
  const cut = context.reply.stopReason === 'max_tokens';
  const status = !done ? 'in_progress' : cut ? 'incomplete' : 'completed';
  const live = options.live;
  const format = live?.textFormat ?? { type: 'text' };
  const created = options.createdAt ?? CREATED_AT;
  return {
    id: options.responseId ?? `resp_testing${pad(context.seq)}`,
    object: 'response',
    created_at: created,
    status,
    ...(live
      ? { background: false, completed_at: done ? created + live.secondsToComplete : null }
      : {}),
    error: null,
    incomplete_details: done && cut ? { reason: 'max_output_tokens' } : null,
    instructions: null,
    ...(live ? { max_output_tokens: live.maxOutputTokens, max_tool_calls: null } : {}),
    model: context.model,
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    ...(live
      ? {
          prompt_cache_key: null,
          reasoning: live.reasoning,
          safety_identifier: null,
          service_tier: done ? live.serviceTier : 'auto',
        }
      : {}),
    store: false,
    ...(live ? { temperature: live.temperature } : {}),
    text: live ? { format, verbosity: live.verbosity } : { format },
    tool_choice: 'auto',
    tools: [...(live?.tools ?? [])],
    ...(live
      ? { top_logprobs: live.topLogprobs, top_p: live.topP, truncation: live.truncation }
      : {}),
    usage: done ? usageOf(context, options) : null,
    ...(live ? { user: null } : {}),
    metadata: {},
  };
}

const items = (context: RenderContext, options: ResponsesWireOptions) =>
  context.reply.blocks.map((block, i) => item(block, i, context, options));

/** What one item's events are rendered with. */
interface ItemStream {
  readonly output_index: number;
  readonly item_id: string;
  readonly split: Splitter;
  readonly obfuscation: ResponsesWireOptions['obfuscation'];
}

/** The `obfuscation` of one delta, when the options ask for it. */
const padding = (at: ItemStream, kind: ResponsesDeltaKind): Json =>
  at.obfuscation ? { obfuscation: at.obfuscation(kind) } : {};

/** The summary events of a reasoning item. */
function reasoningEvents(text: string, chunks: number, at: ItemStream): Json[] {
  const where = { item_id: at.item_id, output_index: at.output_index, summary_index: 0 };
  const part = { type: 'summary_text', text };
  return [
    { type: 'response.reasoning_summary_part.added', ...where, part: { ...part, text: '' } },
    ...at.split(text, chunks).map((delta) => ({
      type: 'response.reasoning_summary_text.delta',
      ...where,
      delta,
      ...padding(at, 'reasoning'),
    })),
    { type: 'response.reasoning_summary_text.done', ...where, text },
    { type: 'response.reasoning_summary_part.done', ...where, part },
  ];
}

/** The content events of a message item. */
function textEvents(text: string, chunks: number, at: ItemStream): Json[] {
  const where = { item_id: at.item_id, output_index: at.output_index, content_index: 0 };
  const part = { type: 'output_text', annotations: [], logprobs: [], text };
  return [
    { type: 'response.content_part.added', ...where, part: { ...part, text: '' } },
    ...at.split(text, chunks).map((delta) => ({
      type: 'response.output_text.delta',
      ...where,
      delta,
      logprobs: [],
      ...padding(at, 'text'),
    })),
    { type: 'response.output_text.done', ...where, text, logprobs: [] },
    { type: 'response.content_part.done', ...where, part },
  ];
}

/** The argument events of a function call item. */
function argumentEvents(args: string, chunks: number, at: ItemStream): Json[] {
  const where = { item_id: at.item_id, output_index: at.output_index };
  return [
    ...at.split(args, chunks).map((delta) => ({
      type: 'response.function_call_arguments.delta',
      ...where,
      delta,
      ...padding(at, 'arguments'),
    })),
    { type: 'response.function_call_arguments.done', ...where, arguments: args },
  ];
}

/** The events of one output item, from `output_item.added` to `output_item.done`. */
function itemEvents(block: BlockPart, wire: Item, at: ItemStream): Json[] {
  const { output_index } = at;
  const added = (shown: Json) => ({
    type: 'response.output_item.added',
    output_index,
    item: shown,
  });
  const events: Json[] = [];
  switch (block.kind) {
    case 'thinking':
    case 'redacted_thinking': {
      const { encrypted_content: _hidden, ...rest } = wire;
      events.push(added({ ...rest, summary: [] }));
      if (block.kind === 'thinking') events.push(...reasoningEvents(block.text, block.chunks, at));
      break;
    }
    case 'text':
      events.push(added({ ...wire, status: 'in_progress', content: [] }));
      events.push(...textEvents(block.text, block.chunks, at));
      break;
    case 'tool_call':
      events.push(added({ ...wire, status: 'in_progress', arguments: '' }));
      events.push(...argumentEvents(String(wire.arguments), block.chunks, at));
      break;
  }
  events.push({ type: 'response.output_item.done', output_index, item: wire });
  return events;
}

function stream(context: RenderContext, options: ResponsesWireOptions): RenderedStream {
  const chunks: string[] = [];
  let sequence_number = 0;
  const emit = (body: Json) =>
    chunks.push(sse({ ...body, sequence_number: sequence_number++ }, String(body.type)));
  emit({ type: 'response.created', response: response(context, options, [], false) });
  emit({ type: 'response.in_progress', response: response(context, options, [], false) });
  const output = items(context, options);
  const split = options.split ?? splitInto;
  context.reply.blocks.forEach((block, output_index) => {
    const wire = output[output_index];
    if (!wire) return;
    const at = { output_index, item_id: wire.id, split, obfuscation: options.obfuscation };
    for (const event of itemEvents(block, wire, at)) emit(event);
  });
  const final = response(context, options, output, true);
  emit({
    type: final.status === 'incomplete' ? 'response.incomplete' : 'response.completed',
    response: final,
  });
  return { chunks, closing: 1 };
}

/** A Responses API renderer with `options` (see {@link ResponsesWireOptions}). */
export function openAIResponsesFormat(options: ResponsesWireOptions = {}): WireRenderer {
  return {
    streamContentType: 'text/event-stream',
    headers: (seq) => ({ ...(options.headers ?? { 'x-request-id': `req_testing${pad(seq)}` }) }),
    reply: (context) => response(context, options, items(context, options), true),
    stream: (context) => stream(context, options),
    error: (failure, seq) =>
      openAIError(failure, seq, 'input', {
        ...options.error,
        ...(options.headers ? { headers: options.headers } : {}),
      }),
  };
}

/** The Responses API renderer, with the default shape. */
export const openAIResponsesRenderer: WireRenderer = openAIResponsesFormat();
