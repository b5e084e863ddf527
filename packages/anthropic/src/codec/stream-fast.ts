import type { Anthropic } from '@anthropic-ai/sdk';
import { readJsonIndex, readJsonString } from '@yourtool/core/adapter';

/** One event of the Messages API stream, as the SDK types it (the stream body's chunk). */
type AnthropicStreamChunk = Anthropic.RawMessageStreamEvent;

const DELTA_START = '{"type":"content_block_delta","index":';
const TEXT_DELTA = ',"delta":{"type":"text_delta","text":';
const JSON_DELTA = ',"delta":{"type":"input_json_delta","partial_json":';

/**
 * A `content_block_delta` event's data read without `JSON.parse` when it is exactly the shape
 * Anthropic sends for text and tool-input deltas (nine events in ten of a long reply), else
 * `undefined` (the caller parses it whole). The object built is the one `JSON.parse` would
 * build, key for key; its shape is an object literal's, which the runtime keeps between streams.
 */
export function readAnthropicDelta(data: string): AnthropicStreamChunk | undefined {
  if (!data.startsWith(DELTA_START)) return undefined;
  const index = readJsonIndex(data, DELTA_START.length);
  if (!index) return undefined;
  const text = data.startsWith(TEXT_DELTA, index.end);
  if (!text && !data.startsWith(JSON_DELTA, index.end)) return undefined;
  const value = readJsonString(data, index.end + (text ? TEXT_DELTA.length : JSON_DELTA.length));
  if (!value || value.end !== data.length - 2 || !data.endsWith('}}')) return undefined;
  return text
    ? {
        type: 'content_block_delta',
        index: index.value,
        delta: { type: 'text_delta', text: value.value },
      }
    : {
        type: 'content_block_delta',
        index: index.value,
        delta: { type: 'input_json_delta', partial_json: value.value },
      };
}
