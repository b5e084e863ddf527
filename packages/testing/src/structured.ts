import { PartialJsonParser } from '@yourtool/core';
import { OUTPUT_WRAPPER_KEY, STRUCTURED_OUTPUT_TOOL } from '@yourtool/core/adapter';
import type { RecordedRequest } from './recorded-request.js';
import {
  type ChunkOptions,
  message,
  type ReplyFunction,
  type ReplyPart,
  stopReason,
  text,
  toolCall,
} from './script.js';

/** Options of the structured-output reply builders. */
export interface ObjectReplyOptions extends ChunkOptions {
  /** The name of the forced output tool (default core's `structured_output`). */
  toolName?: string;
  /** Parts the reply ends with (`usage(...)`, say). */
  extra?: readonly ReplyPart[];
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Whether the request asks for the object through the forced output tool. */
function asksByTool(request: RecordedRequest, toolName: string): boolean {
  return request.tools.includes(toolName);
}

/** A value as the output tool's input: a non-object goes in core's `{ value }` wrapper. */
function toolInput(value: unknown): Record<string, unknown> {
  return isPlainObject(value) ? value : { [OUTPUT_WRAPPER_KEY]: value };
}

function json(value: unknown, what: string): string {
  const encoded = JSON.stringify(value);
  if (encoded === undefined) throw new TypeError(`${what}: the value has no JSON form`);
  return encoded;
}

/**
 * A reply giving `value` as the object a request asks for, in the form the request asks it:
 * the reply's text (JSON, streamed in `chunks` deltas) for native structured output, or a
 * call of the output tool with `value` as its input (a non-object value wrapped as
 * `{ value }`) when the request offers that tool (core's forced-tool fallback). Give it a
 * value that breaks the schema to script an invalid object.
 *
 * @example
 * provider.reply(objectReply({ city: 'Paris', population: 2_100_000 }, { chunks: 8 }));
 */
export function objectReply(value: unknown, options: ObjectReplyOptions = {}): ReplyFunction {
  const encoded = json(value, 'objectReply()');
  const toolName = options.toolName ?? STRUCTURED_OUTPUT_TOOL;
  const chunks = options.chunks ?? 1;
  const extra = options.extra ?? [];
  return (request) =>
    asksByTool(request, toolName)
      ? [toolCall(toolName, toolInput(value), { chunks }), ...extra]
      : [text(encoded, { chunks }), ...extra];
}

/**
 * A reply whose text is `raw` as it is (not JSON, say, or prose around JSON), whatever the
 * request asks: under the forced-tool fallback it is a reply that does not call the tool.
 */
export function objectText(raw: string, options: ChunkOptions = {}): ReplyFunction {
  return () => message(text(raw, options));
}

/** Options of {@link cutObject}. */
export interface CutObjectOptions extends ObjectReplyOptions {
  /** Characters of the value's JSON text the reply gets to before it is cut (default: half). */
  at?: number;
}

/**
 * A reply cut at max_tokens while it gave `value`: stop reason `max_tokens`, and natively
 * the first `at` characters of its JSON text; under the forced-tool fallback, the output
 * tool's input as far as those characters go (open strings, arrays and objects closed),
 * since a tool call's input is whole JSON on every wire.
 */
export function cutObject(value: unknown, options: CutObjectOptions = {}): ReplyFunction {
  const encoded = json(value, 'cutObject()');
  const at = options.at ?? Math.floor(encoded.length / 2);
  if (!Number.isInteger(at) || at < 0 || at >= encoded.length) {
    throw new RangeError(
      `cutObject(): at must be a whole number below the JSON text's length (${encoded.length}), got ${at}`,
    );
  }
  const cut = encoded.slice(0, at);
  const toolName = options.toolName ?? STRUCTURED_OUTPUT_TOOL;
  const chunks = options.chunks ?? 1;
  return (request) => {
    if (!asksByTool(request, toolName)) {
      return [text(cut, { chunks }), stopReason('max_tokens'), ...(options.extra ?? [])];
    }
    const parser = new PartialJsonParser();
    parser.feed(cut);
    return [
      toolCall(toolName, toolInput(parser.value ?? {}), { chunks }),
      stopReason('max_tokens'),
      ...(options.extra ?? []),
    ];
  };
}
