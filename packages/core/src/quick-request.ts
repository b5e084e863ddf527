import { quickParseMessage } from './fast-parse.js';
import type { AdapterConfig, CanonicalRequest } from './schemas/adapter.js';
import type { ContentBlock, ImageBlock, ToolResultContentBlock } from './schemas/content.js';
import { KNOWN_METADATA_FIELDS, type Message } from './schemas/message.js';
import { TOOL_NAME_PATTERN, type ToolDefinition } from './schemas/tool.js';
import type { ToolChoice } from './schemas/tool-choice.js';

/*
 * Hand-written checks of what a first call carries (decision 0198): a canonical request, a new
 * message, an adapter config. Each accepts a value only when it passes a test at least as strict
 * as the zod schema's, and returns what the schema would return (defaults filled, copies of the
 * objects the schema copies, keys in the schema's order); anything else gives null and the
 * schema decides, with its own error paths and messages. So a well-formed first call loads no
 * zod, and a malformed one fails exactly as before. Their tests hold them to the schemas.
 */

type Json = Record<string, unknown>;

const REQUEST_KEYS = new Set([
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
const TOOL_KEYS = new Set([
  'name',
  'description',
  'input_schema',
  'side_effects',
  'requires_workspace',
]);
const SIDE_EFFECTS = new Set(['none', 'read', 'write', 'execute', 'network']);
const CHOICES = new Set(['auto', 'none', 'required']);

/** A plain object (no arrays, no class instances, no own `__proto__`). */
export function isPlainRecord(value: unknown): value is Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return (proto === Object.prototype || proto === null) && !Object.hasOwn(value, '__proto__');
}

/** Whether every own key of `value` is in `known` and none holds `undefined`. */
export function onlyKnownKeys(value: Json, known: ReadonlySet<string>): boolean {
  for (const key of Reflect.ownKeys(value)) {
    if (typeof key !== 'string' || !known.has(key) || value[key] === undefined) return false;
  }
  return true;
}

/** A copy of an image block, keys in the schema's order. */
function copyImage(block: ImageBlock): ImageBlock {
  const { kind, data } = block.source;
  return { type: 'image', source: { kind, data }, media_type: block.media_type };
}

/** A copy of a block inside a tool result, as the schema returns it. */
function copyInner(block: ToolResultContentBlock): ToolResultContentBlock {
  return block.type === 'image' ? copyImage(block) : { type: 'text', text: block.text };
}

/** A copy of a content block that passed the quick check, as the schema returns it. */
function copyBlock(block: ContentBlock): ContentBlock {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'tool_use':
      return { type: 'tool_use', id: block.id, name: block.name, input: { ...block.input } };
    case 'tool_result': {
      const { tool_use_id, content, is_error } = block;
      return { type: 'tool_result', tool_use_id, content: content.map(copyInner), is_error };
    }
    case 'image':
      return copyImage(block);
    case 'thinking':
      return Object.hasOwn(block, 'signature')
        ? { type: 'thinking', text: block.text, signature: block.signature }
        : { type: 'thinking', text: block.text };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: block.data };
  }
}

/** A copy of `record` with the keys of `order` first, in that order, then the others. */
function ordered<T extends object>(record: T, order: readonly string[]): T {
  const out: Record<string, unknown> = {};
  const given = record as Record<string, unknown>;
  for (const key of order) if (Object.hasOwn(given, key)) out[key] = given[key];
  for (const key of Object.keys(given)) if (!Object.hasOwn(out, key)) out[key] = given[key];
  return out as T;
}

const USAGE_ORDER = [
  'input_tokens',
  'output_tokens',
  'cached_input_tokens',
  'cache_creation_input_tokens',
  'cost_usd',
  'pricing_version',
  'latency_ms',
  'reasoning_tokens',
  'provider_cost_usd',
  'estimated',
];

/**
 * The message the schema would return for `value`, when the quick check of `parseMessage`
 * accepts it: sharing none of the objects given (the schema copies them), keys in the schema's
 * order (known metadata fields first). Else null.
 */
export function quickFreshMessage(value: Json): Message | null {
  const message = quickParseMessage(value);
  if (message === null) return null;
  const metadata = ordered(message.metadata, KNOWN_METADATA_FIELDS);
  const { usage, provider_raw } = metadata;
  if (usage) metadata.usage = ordered(usage, USAGE_ORDER);
  if (provider_raw) metadata.provider_raw = { ...provider_raw };
  return { ...message, content: message.content.map(copyBlock), metadata };
}

/** A tool definition as the schema returns it, or null when the schema must decide. */
function quickTool(value: unknown): ToolDefinition | null {
  if (!isPlainRecord(value) || !onlyKnownKeys(value, TOOL_KEYS)) return null;
  const { name, description, input_schema, side_effects, requires_workspace } = value;
  if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) return null;
  if (typeof description !== 'string' || !isPlainRecord(input_schema)) return null;
  if (!SIDE_EFFECTS.has(side_effects as string)) return null;
  if (requires_workspace !== undefined && typeof requires_workspace !== 'boolean') return null;
  return {
    name,
    description,
    input_schema: { ...input_schema },
    side_effects: side_effects as ToolDefinition['side_effects'],
    requires_workspace: requires_workspace ?? true,
  };
}

/** A tool choice as the schema returns it; `undefined` when absent; null when the schema decides. */
function quickToolChoice(value: unknown): ToolChoice | undefined | null {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return CHOICES.has(value) ? (value as ToolChoice) : null;
  if (!isPlainRecord(value) || !onlyKnownKeys(value, new Set(['type', 'name']))) return null;
  if (value.type !== 'tool' || typeof value.name !== 'string' || value.name === '') return null;
  return { type: 'tool', name: value.name };
}

/** Each item through `check`, or null as soon as one gives null. */
function allOf<T>(items: unknown, check: (item: unknown) => T | null): T[] | null {
  if (!Array.isArray(items)) return null;
  const out: T[] = [];
  for (const item of items) {
    const checked = check(item);
    if (checked === null) return null;
    out.push(checked);
  }
  return out;
}

const message = (value: unknown) => (isPlainRecord(value) ? quickFreshMessage(value) : null);
const string = (value: unknown) => (typeof value === 'string' ? value : null);

/** Whether `value` is absent, null or passes `check`. */
const nullish = (value: unknown, check: (value: unknown) => boolean) =>
  value === undefined || value === null || check(value);

/** The scalar fields of a request: whether each is what the schema accepts as it is. */
function scalarsOk(request: Json): boolean {
  const { request_id, model, max_output_tokens, system_prompt, temperature, stream } = request;
  return (
    typeof request_id === 'string' &&
    request_id !== '' &&
    typeof model === 'string' &&
    model !== '' &&
    Number.isSafeInteger(max_output_tokens) &&
    (max_output_tokens as number) > 0 &&
    nullish(system_prompt, (v) => typeof v === 'string') &&
    nullish(temperature, (v) => typeof v === 'number' && Number.isFinite(v) && v >= 0) &&
    nullish(request.output_schema, isPlainRecord) &&
    (stream === undefined || typeof stream === 'boolean')
  );
}

/** A canonical request without its messages, defaults applied (what `normalizeRequest` checks of a session's). */
export type RequestShell = Omit<CanonicalRequest, 'messages'>;

/**
 * The shell (everything but the messages) `CanonicalRequestSchema` would return for `request`,
 * when every field passes the quick checks; else null. The messages are not looked at: a
 * session's are sealed, and `normalizeRequest` checks the others itself.
 */
export function quickRequestShell(request: unknown): RequestShell | null {
  // a key given as undefined is kept as the schema keeps it (a session's requests carry some)
  if (!isPlainRecord(request)) return null;
  for (const key of Reflect.ownKeys(request)) {
    if (typeof key !== 'string' || !REQUEST_KEYS.has(key)) return null;
  }
  if (!scalarsOk(request)) return null;
  const tools = request.tools === undefined ? [] : allOf(request.tools, quickTool);
  const stops = request.stop_sequences === undefined ? [] : allOf(request.stop_sequences, string);
  const toolChoice = quickToolChoice(request.tool_choice);
  if (tools === null || stops === null || toolChoice === null) return null;
  const { system_prompt, temperature, output_schema } = request;
  const out: RequestShell = {
    request_id: request.request_id as string,
    tools,
    model: request.model as string,
    max_output_tokens: request.max_output_tokens as number,
    stop_sequences: stops,
    stream: (request.stream as boolean | undefined) ?? false,
  };
  // the optional fields, present when given (as the schema returns them)
  const given = (key: string) => Object.hasOwn(request, key);
  if (given('system_prompt')) out.system_prompt = system_prompt as string | null | undefined;
  if (given('temperature')) out.temperature = temperature as number | null | undefined;
  if (given('output_schema')) {
    out.output_schema = isPlainRecord(output_schema)
      ? { ...output_schema }
      : (output_schema as null | undefined);
  }
  if (given('tool_choice')) out.tool_choice = toolChoice;
  return reorder(out);
}

/**
 * The canonical request `CanonicalRequestSchema` would return for `request` (defaults filled,
 * messages and tools copied), when every part passes the quick checks; else null.
 */
export function quickCanonicalRequest(request: unknown): CanonicalRequest | null {
  const shell = quickRequestShell(request);
  if (shell === null) return null;
  const messages = allOf((request as Json).messages, message);
  return messages === null ? null : reorder({ ...shell, messages });
}

/** The request with its keys in the schema's order (as zod returns them). */
function reorder<T extends RequestShell>(request: T): T {
  const ordered: Record<string, unknown> = {};
  for (const key of REQUEST_KEYS) {
    if (Object.hasOwn(request, key)) ordered[key] = request[key as keyof T];
  }
  return ordered as T;
}

const CONFIG_KEYS = new Set([
  'api_key',
  'base_url',
  'timeout_seconds',
  'idle_timeout_seconds',
  'max_retries',
  'extra_headers',
  'options',
]);

const positive = (value: unknown) =>
  value === undefined || (typeof value === 'number' && Number.isFinite(value) && value > 0);

/** A URL the schema takes as it is (it trims and strips tabs and newlines from others). */
const plainUrl = (value: unknown) =>
  typeof value === 'string' && !/^\s|\s$|[\t\n\r]/.test(value) && URL.canParse(value);

/** Whether `value` is a plain object of strings. */
const headers = (value: unknown) =>
  isPlainRecord(value) && Object.values(value).every((v) => typeof v === 'string');

/**
 * The adapter config `AdapterConfigSchema` would return for `config` (defaults filled), when
 * every field passes the quick checks; else null.
 */
export function quickAdapterConfig(config: unknown): AdapterConfig | null {
  if (!isPlainRecord(config) || !onlyKnownKeys(config, CONFIG_KEYS)) return null;
  const { api_key, base_url, timeout_seconds, idle_timeout_seconds, max_retries } = config;
  const ok =
    nullish(api_key, (v) => typeof v === 'string') &&
    nullish(base_url, plainUrl) &&
    positive(timeout_seconds) &&
    positive(idle_timeout_seconds) &&
    (max_retries === undefined ||
      (Number.isSafeInteger(max_retries) && (max_retries as number) >= 0)) &&
    (config.extra_headers === undefined || headers(config.extra_headers)) &&
    (config.options === undefined || isPlainRecord(config.options));
  if (!ok) return null;
  const out: Record<string, unknown> = {};
  if (api_key !== undefined) out.api_key = api_key;
  if (base_url !== undefined) out.base_url = base_url;
  out.timeout_seconds = timeout_seconds ?? 600;
  out.idle_timeout_seconds = idle_timeout_seconds ?? 60;
  out.max_retries = max_retries ?? 2;
  out.extra_headers = { ...(config.extra_headers as Json | undefined) };
  out.options = { ...(config.options as Json | undefined) };
  return out as AdapterConfig;
}
