import type { CanonicalRequest } from './schemas/adapter.js';

/** A canonical request without its messages, defaults applied. */
export type RequestShell = Omit<CanonicalRequest, 'messages'>;

const SHELL_KEYS = new Set([
  'request_id',
  'messages',
  'tools',
  'system_prompt',
  'model',
  'max_output_tokens',
  'stop_sequences',
  'temperature',
  'output_schema',
  'tool_choice',
  'stream',
]);

const nonEmpty = (value: unknown): value is string => typeof value === 'string' && value !== '';

/**
 * A quick check of a request's shell (everything but its messages), for `normalizeRequest` on
 * a session's every call: it accepts a request only when each field passes a test at least as
 * strict as the request schema's and the schema would give the same values (its defaults
 * filled the same way), and returns the shell then. Anything it does not decide (tools to
 * check, an output schema, a tool choice, an unknown key, a value of the wrong kind) gives null
 * and the zod schema decides, with its error paths.
 */
export function quickRequestShell(request: unknown): RequestShell | null {
  if (typeof request !== 'object' || request === null) return null;
  if (Object.getPrototypeOf(request) !== Object.prototype) return null;
  const r = request as Record<string, unknown>;
  for (const key in r) if (!SHELL_KEYS.has(key)) return null;
  const { request_id, model, max_output_tokens, tools, system_prompt, stop_sequences } = r;
  if (!nonEmpty(request_id) || !nonEmpty(model)) return null;
  if (!Number.isSafeInteger(max_output_tokens) || (max_output_tokens as number) <= 0) return null;
  if (tools !== undefined && !(Array.isArray(tools) && tools.length === 0)) return null;
  if (system_prompt !== undefined && system_prompt !== null && typeof system_prompt !== 'string')
    return null;
  if (
    stop_sequences !== undefined &&
    !(Array.isArray(stop_sequences) && stop_sequences.every((s) => typeof s === 'string'))
  )
    return null;
  const { temperature, stream } = r;
  if (
    temperature !== undefined &&
    temperature !== null &&
    !(typeof temperature === 'number' && Number.isFinite(temperature) && temperature >= 0)
  )
    return null;
  if (r.output_schema != null || r.tool_choice !== undefined) return null;
  if (stream !== undefined && typeof stream !== 'boolean') return null;
  // the schema's output: its keys in its order, the optional ones only when given
  const shell: Record<string, unknown> = { request_id, tools: [] };
  if (Object.hasOwn(r, 'system_prompt')) shell.system_prompt = system_prompt;
  shell.model = model;
  shell.max_output_tokens = max_output_tokens;
  shell.stop_sequences = stop_sequences === undefined ? [] : [...(stop_sequences as string[])];
  if (Object.hasOwn(r, 'temperature')) shell.temperature = temperature;
  if (Object.hasOwn(r, 'output_schema')) shell.output_schema = r.output_schema;
  if (Object.hasOwn(r, 'tool_choice')) shell.tool_choice = r.tool_choice;
  shell.stream = stream ?? false;
  return shell as RequestShell;
}
