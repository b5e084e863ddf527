import type { Logger } from '../logger.js';

/** Accumulated tool input JSON read as the canonical input, and what was wrong with it if anything. */
export interface ToolInputReading {
  /** The parsed object, or `{}` when the JSON is empty, broken or not an object. */
  input: Record<string, unknown>;
  /** Why the fragments gave `{}` although there were some (`null` when they parsed, or were empty). */
  problem: 'tool input is not valid JSON' | 'tool input is not a JSON object' | null;
}

/** Reads the fragments of a tool input: `{}` unless they parse cleanly to a JSON object. */
export function readToolInputJson(json: string): ToolInputReading {
  if (json.trim() === '') return { input: {}, problem: null };
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return { input: {}, problem: 'tool input is not valid JSON' };
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? { input: value as Record<string, unknown>, problem: null }
    : { input: {}, problem: 'tool input is not a JSON object' };
}

/** The WARN for a tool use whose input fragments did not parse to an object (`{}` is used). */
export function warnToolInputInvalid(
  logger: Logger,
  request_id: string,
  block: { toolUseId: string; json: string },
  reason: string,
): void {
  logger.warn(
    {
      event: 'tool_input_invalid',
      request_id,
      tool_use_id: block.toolUseId,
      raw_length: block.json.length,
    },
    `${reason}; using {}`,
  );
}
