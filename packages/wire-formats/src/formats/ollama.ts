import type { BlockPart, ErrorReply } from '../reply.js';
import {
  errorStatus,
  fullUsage,
  type RenderContext,
  type RenderedError,
  type RenderedStream,
  retryHeaders,
  type Splitter,
  splitInto,
  statusPhrase,
  type WireRenderer,
} from './renderer.js';

/**
 * Ollama's `/api/chat`: one JSON object, or newline-delimited JSON objects ending with
 * `done: true` (stop reason and counts). Thinking is `message.thinking` (no signature), tool
 * calls come whole and without ids. Redacted thinking has no place here. Also the model
 * metadata the adapter reads before its first call to a model (`/api/show`) and `/api/tags`.
 */

type Json = Record<string, unknown>;

const CREATED_AT = '2026-01-01T00:00:00.000000000Z';

/** Timings a final line reports, in nanoseconds, as Ollama measures them. */
export interface OllamaDurations {
  readonly total: number;
  readonly load: number;
  readonly promptEval: number;
  readonly eval: number;
}

/** How an Ollama reply departs from the defaults, for a test reproducing recorded bytes. */
export interface OllamaWireOptions {
  /** The timings the final line reports. Default a few milliseconds. */
  readonly durations?: OllamaDurations;
  /** Where streamed text and thinking are split. Default {@link splitInto}. */
  readonly split?: Splitter;
}

const DEFAULT_DURATIONS: OllamaDurations = {
  total: 1_000_000,
  load: 1_000,
  promptEval: 100_000,
  eval: 800_000,
};

const toolCallOf = (block: BlockPart & { kind: 'tool_call' }) => ({
  function: { name: block.name, arguments: block.input },
});

function counts(context: RenderContext, options: OllamaWireOptions): Json {
  const usage = fullUsage(context.reply.usage);
  const durations = options.durations ?? DEFAULT_DURATIONS;
  return {
    total_duration: durations.total,
    load_duration: durations.load,
    prompt_eval_count: usage.input + usage.cached,
    prompt_eval_duration: durations.promptEval,
    eval_count: usage.output,
    eval_duration: durations.eval,
  };
}

const doneReason = (context: RenderContext) =>
  context.reply.stopReason === 'max_tokens' ? 'length' : 'stop';

function reply(context: RenderContext, options: OllamaWireOptions): Json {
  const blocks = context.reply.blocks;
  const joined = (kind: 'text' | 'thinking') =>
    blocks.flatMap((b) => (b.kind === kind ? [b.text] : [])).join('');
  const calls = blocks.flatMap((b) => (b.kind === 'tool_call' ? [toolCallOf(b)] : []));
  const thought = joined('thinking');
  return {
    model: context.model,
    created_at: CREATED_AT,
    message: {
      role: 'assistant',
      content: joined('text'),
      ...(thought !== '' ? { thinking: thought } : {}),
      ...(calls.length > 0 ? { tool_calls: calls } : {}),
    },
    done_reason: doneReason(context),
    done: true,
    ...counts(context, options),
  };
}

function stream(context: RenderContext, options: OllamaWireOptions): RenderedStream {
  const split = options.split ?? splitInto;
  const chunks: string[] = [];
  const line = (message: Json, end: Json = { done: false }) =>
    chunks.push(
      `${JSON.stringify({ model: context.model, created_at: CREATED_AT, message: { role: 'assistant', content: '', ...message }, ...end })}\n`,
    );
  for (const block of context.reply.blocks) {
    switch (block.kind) {
      case 'text':
        for (const content of split(block.text, block.chunks)) line({ content });
        break;
      case 'thinking':
        for (const thinking of split(block.text, block.chunks)) line({ thinking });
        break;
      case 'tool_call':
        line({ tool_calls: [toolCallOf(block)] });
        break;
      case 'redacted_thinking':
        break;
    }
  }
  line({}, { done_reason: doneReason(context), done: true, ...counts(context, options) });
  return { chunks, closing: 1 };
}

function error(failure: ErrorReply, _seq: number): RenderedError {
  const status = errorStatus(failure, 503);
  const message =
    failure.message ??
    (failure.shape === 'context_overflow'
      ? 'the input length exceeds the context length'
      : failure.shape === 'overloaded'
        ? 'server busy, please try again.  maximum pending requests exceeded'
        : `scripted ${status}: ${statusPhrase(status)}`);
  return {
    status,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      ...retryHeaders(failure.retryAfterSeconds),
    },
    body: { error: message },
  };
}

/** An Ollama `/api/chat` renderer with `options` (see {@link OllamaWireOptions}). */
export function ollamaFormat(options: OllamaWireOptions = {}): WireRenderer {
  return {
    streamContentType: 'application/x-ndjson',
    headers: () => ({}),
    reply: (context) => reply(context, options),
    stream: (context) => stream(context, options),
    error,
  };
}

/** The Ollama `/api/chat` renderer, with the default shape. */
export const ollamaRenderer: WireRenderer = ollamaFormat();

/** What `/api/show` reports about a model (see `ScriptedProviderOptions.ollamaModels`). */
export interface OllamaModelSpec {
  /** Default `['completion', 'tools', 'thinking', 'vision']`. */
  capabilities?: readonly string[];
  /**
   * The model's context window: the length it was trained for and its Modelfile's `num_ctx`
   * (so the adapter asks for all of it). Default 32768.
   */
  context_length?: number;
}

/** The default capabilities `/api/show` reports. */
export const DEFAULT_OLLAMA_CAPABILITIES: readonly string[] = Object.freeze([
  'completion',
  'tools',
  'thinking',
  'vision',
]);

/** An `/api/show` reply for a model. */
export function ollamaShow(spec: OllamaModelSpec = {}): Json {
  const context = spec.context_length ?? 32_768;
  return {
    license: '',
    modelfile: '# Modelfile of a @yourtool/testing scripted model\n',
    parameters: `num_ctx                        ${context}`,
    template: '{{ .Prompt }}',
    details: {
      parent_model: '',
      format: 'gguf',
      family: 'scripted',
      families: ['scripted'],
      parameter_size: '1B',
      quantization_level: 'Q4_K_M',
    },
    model_info: {
      'general.architecture': 'scripted',
      'scripted.context_length': context,
    },
    capabilities: [...(spec.capabilities ?? DEFAULT_OLLAMA_CAPABILITIES)],
    modified_at: CREATED_AT,
  };
}

/** An `/api/tags` reply listing `names`. */
export function ollamaTags(names: readonly string[]): Json {
  return {
    models: names.map((name) => ({
      name,
      model: name,
      modified_at: CREATED_AT,
      size: 1_000_000,
      digest: '0'.repeat(64),
      details: { format: 'gguf', family: 'scripted', parameter_size: '1B' },
    })),
  };
}
