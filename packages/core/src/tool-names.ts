/**
 * Tool names on the wire. A tool use in a history may carry a name no provider takes (an
 * imported history with `fs.read`, an MCP-style `server.tool`, a name over 64 characters): the
 * canonical name stays in the store, and each adapter sends a provider-safe name derived from it,
 * stably (the same name always maps the same way) and reversibly (a reply naming the derived
 * name is read back as the canonical one). See docs/decisions/0140.
 */

import type { Message } from './schemas/message.js';
import { SealedPrefixMemo } from './sealed-prefix.js';

/** What a provider accepts as a tool (function) name. */
export interface ToolNameRules {
  /** Characters and shape a name must match. */
  pattern: RegExp;
  /** Longest name accepted. */
  maxLength: number;
  /** What the rule allows, in words, for error messages. */
  description?: string;
}

/**
 * The canonical `tool-name-format` rule, what a stored or imported history may hold: any
 * non-empty name of at most 256 characters without control characters. Names no provider takes
 * (`fs.read`, MCP-style `server.tool`, over 64 characters) stay as they came; adapters send the
 * name {@link wireToolName} derives (decisions 0140, 0159).
 */
export const CANONICAL_TOOL_NAME_RULES: ToolNameRules = {
  pattern: /^[^\p{Cc}]+$/u,
  maxLength: 256,
  description: '1-256 characters, no control characters',
};

/**
 * The rule of Anthropic, OpenAI (Chat Completions and Responses), Mistral, DeepSeek, Groq and
 * most Chat Completions servers: 1-64 letters, digits, `_` or `-`. The session holds a model's
 * reply to it (decision 0135: `functions.read_file` is an invalid reply); a stored history only
 * to {@link CANONICAL_TOOL_NAME_RULES}.
 */
export const STRICT_TOOL_NAME_RULES: ToolNameRules = {
  pattern: /^[a-zA-Z0-9_-]+$/,
  maxLength: 64,
  description: '1-64 letters, digits, "_" or "-"',
};

/** Gemini's rule: starts with a letter or `_`, then letters, digits, `_`, `.`, `-` or `:`, at most 64. */
export const GEMINI_TOOL_NAME_RULES: ToolNameRules = {
  pattern: /^[a-zA-Z_][a-zA-Z0-9_.:-]*$/,
  maxLength: 64,
};

/** FNV-1a over UTF-16 code units, as 8 hex digits: a stable, dependency-free fingerprint. */
function fingerprint(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

/** Whether `name` satisfies `rules`. */
export function fitsToolNameRules(name: string, rules: ToolNameRules): boolean {
  return name.length > 0 && name.length <= rules.maxLength && rules.pattern.test(name);
}

/**
 * The name to send for the canonical tool name `name` under `rules`: the name itself when it
 * fits; otherwise its characters outside `[a-zA-Z0-9_]` replaced by `_`, cut to leave room, and
 * `_` plus a fingerprint of the whole canonical name appended (so two names that sanitize alike
 * stay apart, and no derived name can equal a declared tool's canonical name by accident).
 */
export function wireToolName(name: string, rules: ToolNameRules = STRICT_TOOL_NAME_RULES): string {
  if (fitsToolNameRules(name, rules)) return name;
  const suffix = `_${fingerprint(name)}`;
  let base = name.replace(/[^a-zA-Z0-9_]/g, '_');
  if (!/^[a-zA-Z_]/.test(base)) base = `_${base}`;
  return `${base.slice(0, Math.max(1, rules.maxLength - suffix.length))}${suffix}`;
}

/**
 * Reads a tool name from a reply back as canonical: when `wireName` is the derived name of one of
 * `canonicalNames` (the names the request carried: its tools and its history's tool uses), that
 * canonical name; otherwise `wireName` as it came.
 */
export function canonicalToolName(
  wireName: string,
  canonicalNames: Iterable<string>,
  rules: ToolNameRules = STRICT_TOOL_NAME_RULES,
): string {
  for (const name of canonicalNames) {
    if (name !== wireName && wireToolName(name, rules) === wireName) return name;
  }
  return wireName;
}

/** The names of a history's tool uses, in the order they first appear. */
const sealedToolNames = new SealedPrefixMemo(() => new Set<string>());

function addToolUseNames(
  names: Set<string>,
  message: { content: ReadonlyArray<{ type: string; name?: string }> },
): void {
  for (const block of message.content) {
    if (block.type === 'tool_use' && typeof block.name === 'string') names.add(block.name);
  }
}

/**
 * The tool names a request carries: its declared tools and its history's tool uses (those of
 * the sealed messages it starts with collected once per history, decision 0148).
 */
export function requestToolNames(request: {
  tools?: ReadonlyArray<{ name: string }>;
  messages: ReadonlyArray<{ content: ReadonlyArray<{ type: string; name?: string }> }>;
}): Set<string> {
  const names = new Set<string>();
  for (const tool of request.tools ?? []) names.add(tool.name);
  const messages = request.messages as readonly Message[];
  const prefix = sealedToolNames.run(messages, addToolUseNames);
  for (const name of prefix.state) names.add(name);
  for (let i = prefix.end; i < messages.length; i++) addToolUseNames(names, messages[i] as Message);
  return names;
}

/**
 * A namer for one request: the wire name of each canonical tool name under `rules`, logging a
 * `tool_name_mapped` WARN once per distinct name that had to be renamed.
 */
export function createToolNamer(options: {
  rules: ToolNameRules;
  adapter: string;
  logger: { warn(obj: Record<string, unknown>, msg?: string): void };
  requestId?: string;
}): (name: string) => string {
  const logged = new Set<string>();
  return (name) => {
    const wire = wireToolName(name, options.rules);
    if (wire !== name && !logged.has(name)) {
      logged.add(name);
      options.logger.warn(
        {
          event: 'tool_name_mapped',
          adapter: options.adapter,
          ...(options.requestId ? { request_id: options.requestId } : {}),
          tool_name: name,
          wire_name: wire,
        },
        `tool name "${name}" breaks ${options.adapter}'s naming rule; sent as "${wire}" and read back as "${name}"`,
      );
    }
    return wire;
  };
}
