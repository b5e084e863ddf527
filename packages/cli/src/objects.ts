import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { JsonSchemaObject, Message } from '@yourtool/core';
import { CliError } from './io.js';

/**
 * The JSON Schema file of `--schema`: a JSON object, read once. A file that cannot be read or
 * is not a JSON object is a CliError naming it.
 */
export function readSchemaFile(path: string, cwd: string): JsonSchemaObject {
  const file = resolve(cwd, path);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliError(`--schema ${path}: cannot read it (${(error as Error).message})`);
  }
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch (error) {
    throw new CliError(`--schema ${path}: not JSON (${(error as Error).message})`);
  }
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
    throw new CliError(`--schema ${path}: a JSON Schema must be a JSON object`);
  }
  return schema as JsonSchemaObject;
}

/** An object as the CLI shows it: indented JSON, each line prefixed by `indent`. */
export function showObject(value: unknown, indent = ''): string {
  const text = JSON.stringify(value, null, 2) ?? String(value);
  return text
    .split('\n')
    .map((line) => `${indent}${line}`)
    .join('\n');
}

/** What a stored reply of a turn that asked for an object gave. */
export interface StoredObject {
  /** Whether it validated when it was stored. */
  valid: boolean;
  /** The object (its JSON, parsed), or undefined when the reply held none that parses. */
  value: unknown;
  /** Why it is not valid, one line per issue. */
  issues: string[];
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The object a stored assistant reply gave, from `metadata.structured_output` and its content:
 * the reply's text (native structured output) or the output tool's input (the fallback; a
 * non-object value as the `{ value }` it was sent in). Null for a reply that asked for none.
 */
export function storedObject(message: Message): StoredObject | null {
  const record = message.metadata.structured_output;
  if (!record) return null;
  const value =
    record.mode === 'tool'
      ? message.content.find((b) => b.type === 'tool_use')?.input
      : parsed(message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join(''));
  const issues = (record.issues ?? []).map((i) => `${i.path}: ${i.message} (${i.rule})`);
  return { valid: record.valid, value, issues };
}
