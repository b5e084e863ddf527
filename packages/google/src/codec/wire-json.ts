import type { FunctionCall, Part } from '@google/genai';

/**
 * A part's keys in the order `@google/genai` (3.x) writes them on the Gemini API
 * (`partToMldev`): the body text the adapter writes must be the one the SDK would have sent.
 */
const PART_KEYS = [
  'mediaResolution',
  'toolCall',
  'toolResponse',
  'audioTranscription',
  'codeExecutionResult',
  'executableCode',
  'fileData',
  'functionCall',
  'functionResponse',
  'inlineData',
  'text',
  'thought',
  'thoughtSignature',
  'videoMetadata',
  'partMetadata',
  'mediaProcessing',
  'speechMetadata',
] as const;

/** A function call's keys as the SDK writes them (`functionCallToMldev`). */
const FUNCTION_CALL_KEYS = ['args', 'id', 'name'] as const;

/** `from`'s fields named in `keys`, in that order, leaving out null and undefined (as the SDK). */
function pick(from: object, keys: readonly string[]): Record<string, unknown> {
  const fields = from as Record<string, unknown>;
  const to: Record<string, unknown> = {};
  for (const key of keys) {
    const value = fields[key];
    if (value !== null && value !== undefined) to[key] = value;
  }
  return to;
}

/** One part's JSON exactly as `@google/genai` writes it in a Gemini API request body. */
export function geminiPartJson(part: Part): string {
  const wire = pick(part, PART_KEYS);
  if (wire.functionCall !== undefined) {
    wire.functionCall = pick(wire.functionCall as FunctionCall, FUNCTION_CALL_KEYS);
  }
  return JSON.stringify(wire);
}

/** Parts' JSON joined by commas (`''` for none). */
export function geminiPartsJson(parts: readonly Part[]): string {
  let json = '';
  for (const part of parts) json += json === '' ? geminiPartJson(part) : `,${geminiPartJson(part)}`;
  return json;
}

/**
 * One content's JSON as the SDK writes it (`contentToMldev`: `parts`, then `role`), from its
 * role and its parts' JSON already joined by commas.
 */
export function geminiContentJson(role: string, partsJson: string): string {
  return `{"parts":[${partsJson}],"role":${JSON.stringify(role)}}`;
}

const encoder = new TextEncoder();

/** `text` as UTF-8 bytes. */
export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/** The bytes of `chunks`, one after another, in one array (a single copy of each). */
export function concatBytes(chunks: readonly Uint8Array[]): Uint8Array {
  let length = 0;
  for (const chunk of chunks) length += chunk.length;
  const out = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}
