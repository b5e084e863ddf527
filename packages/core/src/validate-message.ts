import { isUlid, timestampToEpochMicros } from './ids.js';
import { parseModelId } from './model-id.js';
import { issuesFromZod } from './parse.js';
import type { ContentBlock, ImageBlock, ToolResultBlock, ToolUseBlock } from './schemas/content.js';
import {
  CURRENT_SCHEMA_VERSION,
  type Message,
  MessageSchema,
  type Role,
} from './schemas/message.js';
import type { ToolDefinition } from './schemas/tool.js';
import { isSealedMessage } from './sealed.js';
import { SealedPrefixMemo } from './sealed-prefix.js';
import { CANONICAL_TOOL_NAME_RULES, fitsToolNameRules, type ToolNameRules } from './tool-names.js';
import { validateToolInput } from './tool-schema.js';

/**
 * The invariants of canonical-format §5, by rule id. `validateMessage` reports each violation
 * with the rule it breaks. Rules marked (complete) apply only to `status: complete` messages;
 * a partial, cancelled or errored message may legitimately break them.
 */
export const MESSAGE_RULES = {
  schema: 'the message has the canonical shape (fields, types, block shapes)',
  'schema-version': `schema_version is ${CURRENT_SCHEMA_VERSION} or lower`,
  'message-id-ulid': 'message ids are ULIDs',
  'content-non-empty': '(complete) content is non-empty for non-system messages',
  'role-block-allowed':
    'blocks fit the role: user text/image; assistant text/tool_use/thinking/redacted_thinking; system text; tool tool_result',
  'tool-name-format':
    'tool use names are 1-256 characters without control characters (a model reply in a session: 1-64 letters, digits, "_" or "-")',
  'tool-use-id-unique': 'tool use ids are unique within the message',
  'tool-input-schema': '(complete) tool use input validates against its tool definition',
  'tool-parent-id': 'every tool message has metadata.parent_tool_use_id',
  'tool-result-matches-parent': "a tool message's results answer its parent_tool_use_id",
  'assistant-model-provider':
    '(complete) assistant messages carry metadata.model ("provider:name") and a matching metadata.provider',
  'assistant-routing':
    '(complete) assistant messages carry metadata.routing whose chosen_model echoes metadata.model',
  'assistant-usage': '(complete) assistant messages carry metadata.usage',
  'usage-pricing-version': 'a usage with a cost names the pricing_version that produced it',
  'image-source':
    'image sources are well-formed: base64 data is base64, urls are http(s), file refs are workspace-relative',
  'image-media-type': 'image media types are image/*',
} as const;

/** The id of a message invariant. */
export type MessageRule = keyof typeof MESSAGE_RULES;

/** One broken invariant: which rule, where, and what was found. */
export interface MessageViolation {
  rule: MessageRule | HistoryRule;
  /** JSON path inside the message (`content[1].input`), or `messages[3]` for history rules. */
  path: string;
  message: string;
}

/** Outcome of a validation. */
export interface ValidationResult {
  ok: boolean;
  violations: MessageViolation[];
}

/** Options of {@link validateMessage}. */
export interface ValidateMessageOptions {
  /** Tool definitions by name; when given, tool use inputs are checked against their schemas. */
  tools?: ReadonlyMap<string, Pick<ToolDefinition, 'input_schema'>> | readonly ToolDefinition[];
  /**
   * The rule tool use names must keep (`tool-name-format`). By default the canonical one,
   * {@link CANONICAL_TOOL_NAME_RULES}: a stored or imported history keeps names such as `fs.read`
   * as they came, and adapters derive the wire name (decisions 0140, 0159). The session checks a
   * model's reply with core's `STRICT_TOOL_NAME_RULES` (decision 0135).
   */
  toolNameRules?: ToolNameRules;
}

const ALLOWED_BLOCKS: Record<Role, ReadonlySet<ContentBlock['type']>> = {
  user: new Set(['text', 'image']),
  assistant: new Set(['text', 'tool_use', 'thinking', 'redacted_thinking']),
  system: new Set(['text']),
  tool: new Set(['tool_result']),
};

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Why image data is not standard, padded base64, naming the first character at fault; or null. */
function base64Problem(data: string): string | null {
  if (BASE64.test(data) && data.length % 4 === 0) return null;
  if (/^data:/i.test(data))
    return 'base64 image data must be the bare base64 text, without a "data:...;base64," prefix';
  const bad = /[^A-Za-z0-9+/=]|=(?!=?$)/.exec(data);
  if (bad) {
    const shown = /\s/.test(bad[0]) ? 'whitespace' : JSON.stringify(bad[0]);
    return `base64 image data is not valid base64: ${shown} at offset ${bad.index}`;
  }
  return `base64 image data is not valid base64: its length ${data.length} is not a multiple of 4`;
}

/** A value quoted for an error message, cut after 60 characters (image data can be megabytes). */
function quoteStart(value: string): string {
  return value.length > 60
    ? `"${value.slice(0, 60)}..." (${value.length} characters)`
    : `"${value}"`;
}

/**
 * What is wrong with one image block for any provider: a media type that is not `image/…`,
 * base64 data that is not standard padded base64, a URL that is not http(s), a `file_ref`
 * outside the workspace (rules `image-media-type`, `image-source`). Paths start at `path`.
 */
export function imageBlockViolations(image: ImageBlock, path = 'image'): MessageViolation[] {
  const out: MessageViolation[] = [];
  checkImage(image, path, out);
  return out;
}

function checkImage(image: ImageBlock, path: string, out: MessageViolation[]): void {
  if (!image.media_type.startsWith('image/')) {
    out.push({
      rule: 'image-media-type',
      path: `${path}.media_type`,
      message: `"${image.media_type}" is not an image media type`,
    });
  }
  const { kind, data } = image.source;
  const at = `${path}.source.data`;
  if (kind === 'base64') {
    const problem = base64Problem(data);
    if (problem !== null) out.push({ rule: 'image-source', path: at, message: problem });
  } else if (kind === 'url') {
    let ok = false;
    try {
      const url = new URL(data);
      ok = url.protocol === 'https:' || url.protocol === 'http:';
    } catch {
      ok = false;
    }
    if (!ok)
      out.push({
        rule: 'image-source',
        path: at,
        message: `${quoteStart(data)} is not an http(s) URL`,
      });
  } else if (
    data.startsWith('/') ||
    /^[a-zA-Z]:[\\/]/.test(data) ||
    data.split(/[\\/]/).includes('..')
  ) {
    out.push({
      rule: 'image-source',
      path: at,
      message: `file_ref "${data}" must be a workspace-relative path without ".."`,
    });
  }
}

function toolSchemas(
  tools: ValidateMessageOptions['tools'],
): ReadonlyMap<string, Pick<ToolDefinition, 'input_schema'>> | undefined {
  if (!tools) return undefined;
  if (Array.isArray(tools)) return new Map(tools.map((t) => [t.name, t]));
  return tools as ReadonlyMap<string, Pick<ToolDefinition, 'input_schema'>>;
}

/** What the block checks of one message share. */
interface BlockCheck {
  message: Message;
  complete: boolean;
  schemas: ReadonlyMap<string, Pick<ToolDefinition, 'input_schema'>> | undefined;
  seenToolUseIds: Set<string>;
  toolNameRules: ToolNameRules;
  violations: MessageViolation[];
}

/** schema_version, the id, and content being present. */
function checkEnvelope(message: Message, complete: boolean, violations: MessageViolation[]): void {
  if (message.schema_version > CURRENT_SCHEMA_VERSION) {
    violations.push({
      rule: 'schema-version',
      path: 'schema_version',
      message: `schema_version ${message.schema_version} is newer than ${CURRENT_SCHEMA_VERSION}`,
    });
  }
  if (!isUlid(message.id)) {
    violations.push({
      rule: 'message-id-ulid',
      path: 'id',
      message: `"${message.id}" is not a ULID`,
    });
  }
  if (complete && message.role !== 'system' && message.content.length === 0) {
    violations.push({
      rule: 'content-non-empty',
      path: 'content',
      message: `a complete ${message.role} message has no content`,
    });
  }
}

function checkToolUse(check: BlockCheck, block: ToolUseBlock, path: string): void {
  const { violations, seenToolUseIds } = check;
  if (!fitsToolNameRules(block.name, check.toolNameRules)) {
    violations.push({
      rule: 'tool-name-format',
      path: `${path}.name`,
      message: `tool name ${quoteStart(JSON.stringify(block.name).slice(1, -1))} is not ${check.toolNameRules.description ?? `${check.toolNameRules.pattern} of at most ${check.toolNameRules.maxLength} characters`}`,
    });
  }
  if (seenToolUseIds.has(block.id)) {
    violations.push({
      rule: 'tool-use-id-unique',
      path: `${path}.id`,
      message: `tool use id "${block.id}" appears twice`,
    });
  }
  seenToolUseIds.add(block.id);
  const definition = check.schemas?.get(block.name);
  if (!check.complete || !definition) return;
  const result = validateToolInput(definition, block.input);
  if (result.ok) return;
  for (const issue of result.issues) {
    violations.push({
      rule: 'tool-input-schema',
      path: `${path}.${issue.path}`,
      message: `${block.name}: ${issue.message}`,
    });
  }
}

function checkToolResult(check: BlockCheck, block: ToolResultBlock, path: string): void {
  const { message, violations } = check;
  block.content.forEach((inner, j) => {
    if (inner.type === 'image') checkImage(inner, `${path}.content[${j}]`, violations);
  });
  const parent = message.metadata.parent_tool_use_id;
  if (message.role === 'tool' && parent && block.tool_use_id !== parent) {
    violations.push({
      rule: 'tool-result-matches-parent',
      path: `${path}.tool_use_id`,
      message: `result answers "${block.tool_use_id}" but parent_tool_use_id is "${parent}"`,
    });
  }
}

function checkBlock(check: BlockCheck, block: ContentBlock, index: number): void {
  const { message, violations } = check;
  const path = `content[${index}]`;
  if (!ALLOWED_BLOCKS[message.role].has(block.type)) {
    violations.push({
      rule: 'role-block-allowed',
      path,
      message: `a ${message.role} message cannot hold a ${block.type} block`,
    });
  }
  if (block.type === 'tool_use') checkToolUse(check, block, path);
  else if (block.type === 'image') checkImage(block, path, violations);
  else if (block.type === 'tool_result') checkToolResult(check, block, path);
}

/** metadata.model and metadata.provider of a complete assistant message. */
function checkModelProvider(meta: Message['metadata'], violations: MessageViolation[]): void {
  if (!meta.model || !meta.provider) {
    violations.push({
      rule: 'assistant-model-provider',
      path: meta.model ? 'metadata.provider' : 'metadata.model',
      message: 'a complete assistant message must record the model and provider that produced it',
    });
    return;
  }
  try {
    const { provider } = parseModelId(meta.model);
    if (provider !== meta.provider) {
      violations.push({
        rule: 'assistant-model-provider',
        path: 'metadata.provider',
        message: `provider "${meta.provider}" does not match model "${meta.model}"`,
      });
    }
  } catch (error) {
    violations.push({
      rule: 'assistant-model-provider',
      path: 'metadata.model',
      message: (error as Error).message,
    });
  }
}

/** What a complete assistant message must record: model and provider, routing, usage. */
function checkCompleteAssistant(meta: Message['metadata'], violations: MessageViolation[]): void {
  checkModelProvider(meta, violations);
  if (!meta.routing) {
    violations.push({
      rule: 'assistant-routing',
      path: 'metadata.routing',
      message: 'a complete assistant message must record its routing decision',
    });
  } else if (meta.model && meta.routing.chosen_model !== meta.model) {
    violations.push({
      rule: 'assistant-routing',
      path: 'metadata.routing.chosen_model',
      message: `routing chose "${meta.routing.chosen_model}" but the message was produced by "${meta.model}"`,
    });
  }
  if (!meta.usage) {
    violations.push({
      rule: 'assistant-usage',
      path: 'metadata.usage',
      message: 'a complete assistant message must record its usage',
    });
  }
}

/** The metadata rules: a tool message's parent, a complete assistant's records, cost audit. */
function checkMetadata(message: Message, complete: boolean, violations: MessageViolation[]): void {
  const meta = message.metadata;
  if (message.role === 'tool' && !meta.parent_tool_use_id) {
    violations.push({
      rule: 'tool-parent-id',
      path: 'metadata.parent_tool_use_id',
      message: 'a tool message must name the tool use it answers',
    });
  }
  if (message.role === 'assistant' && complete) checkCompleteAssistant(meta, violations);
  if (meta.usage && meta.usage.cost_usd !== null && !meta.usage.pricing_version) {
    violations.push({
      rule: 'usage-pricing-version',
      path: 'metadata.usage.pricing_version',
      message: 'a cost without the pricing_version that produced it cannot be audited or repriced',
    });
  }
}

/**
 * Checks a message against every invariant of canonical-format §5 (see {@link MESSAGE_RULES}).
 * Accepts any value: a value that is not even message-shaped yields `schema` violations.
 * Rules that only bind complete messages are skipped for partial, cancelled and errored ones.
 */
export function validateMessage(
  input: unknown,
  options: ValidateMessageOptions = {},
): ValidationResult {
  const parsed = MessageSchema.safeParse(input);
  if (!parsed.success) {
    return {
      ok: false,
      violations: issuesFromZod(parsed.error).map((i) => ({ rule: 'schema', ...i })),
    };
  }
  const message = parsed.data;
  const violations: MessageViolation[] = [];
  const complete = message.metadata.status === 'complete';
  checkEnvelope(message, complete, violations);
  const check: BlockCheck = {
    message,
    complete,
    schemas: toolSchemas(options.tools),
    seenToolUseIds: new Set<string>(),
    toolNameRules: options.toolNameRules ?? CANONICAL_TOOL_NAME_RULES,
    violations,
  };
  message.content.forEach((block, index) => {
    checkBlock(check, block, index);
  });
  checkMetadata(message, complete, violations);
  return { ok: violations.length === 0, violations };
}

/**
 * The image sources of messages about to be sent that no provider could use: base64 data that
 * is not base64, a `url` that is not http(s), a `file_ref` outside the workspace (rule
 * `image-source`, as {@link validateMessage} reports it). Images inside tool results are
 * included. Paths start at `messages[i]`. Runs on every request before anything is sent, so it
 * looks at image blocks only.
 */
export function imageSourceViolations(messages: readonly Message[]): MessageViolation[] {
  const out: MessageViolation[] = [];
  // the sealed messages a history starts with, once they all passed, are not looked at again
  const prefix = imagesPassed.run(messages, checkSealedImages);
  for (let i = prefix.state.failed ? 0 : prefix.end; i < messages.length; i++) {
    const message = messages[i];
    // a sealed message cannot change: once its images passed, they pass (decision 0102)
    if (message === undefined || imagesChecked.has(message)) continue;
    const found = out.length;
    const content = message.content;
    for (let k = 0; k < content.length; k++) {
      const block = content[k];
      if (block?.type === 'image') {
        checkImage(block, `messages[${i}].content[${k}]`, out);
      } else if (block?.type === 'tool_result') {
        for (let j = 0; j < block.content.length; j++) {
          const inner = block.content[j];
          if (inner?.type === 'image')
            checkImage(inner, `messages[${i}].content[${k}].content[${j}]`, out);
        }
      }
    }
    if (out.length === found && isSealedMessage(message)) imagesChecked.add(message);
  }
  return out.filter((v) => v.rule === 'image-source');
}

/** Sealed messages whose images passed {@link imageSourceViolations}. */
const imagesChecked = new WeakSet<object>();

/** Whether every image of a history's sealed prefix passed (decision 0148). */
const imagesPassed = new SealedPrefixMemo(() => ({ failed: false }));

function checkSealedImages(state: { failed: boolean }, message: Message): void {
  if (state.failed || imagesChecked.has(message)) return;
  const found: MessageViolation[] = [];
  message.content.forEach((block, k) => {
    if (block.type === 'image') checkImage(block, `content[${k}]`, found);
    else if (block.type === 'tool_result') {
      for (const inner of block.content) if (inner.type === 'image') checkImage(inner, '', found);
    }
  });
  // only the source rule counts here (see imageSourceViolations' result)
  if (found.some((v) => v.rule === 'image-source')) state.failed = true;
  else if (found.length === 0) imagesChecked.add(message);
}

/** Invariants that span a whole history rather than one message. */
export const HISTORY_RULES = {
  'history-session': 'every message belongs to the same session',
  'history-order': 'messages are in creation order (ids and created_at never decrease)',
  'tool-use-id-unique-history': 'a tool use id appears in one tool use block only',
  'tool-result-has-use': 'every tool result answers a tool use that appears earlier',
  'tool-use-answered-once': 'a tool use is answered at most once',
} as const;

/** The id of a history invariant. */
export type HistoryRule = keyof typeof HISTORY_RULES;

/**
 * Checks a session's messages against each other: one session, creation order, unique tool use
 * ids, every tool result answering an earlier tool use at most once. (An unanswered tool use is
 * not a violation: the latest turn may still be running. Adapters repair it on replay.)
 */
export function validateHistory(messages: readonly Message[]): ValidationResult {
  const violations: MessageViolation[] = [];
  const toolUses = new Set<string>();
  const answered = new Set<string>();
  messages.forEach((message, index) => {
    const at = `messages[${index}]`;
    const first = messages[0];
    if (first && message.session_id !== first.session_id) {
      violations.push({
        rule: 'history-session',
        path: `${at}.session_id`,
        message: `"${message.session_id}" differs from the session "${first.session_id}"`,
      });
    }
    const previous = index > 0 ? messages[index - 1] : undefined;
    if (
      previous &&
      ((isUlid(message.id) && isUlid(previous.id) && message.id < previous.id) ||
        timestampToEpochMicros(message.created_at) < timestampToEpochMicros(previous.created_at))
    ) {
      violations.push({
        rule: 'history-order',
        path: at,
        message: `message ${message.id} sorts before the message preceding it (${previous.id})`,
      });
    }
    message.content.forEach((block, j) => {
      if (block.type === 'tool_use') {
        if (toolUses.has(block.id)) {
          violations.push({
            rule: 'tool-use-id-unique-history',
            path: `${at}.content[${j}].id`,
            message: `tool use id "${block.id}" was already used`,
          });
        }
        toolUses.add(block.id);
      } else if (block.type === 'tool_result') {
        if (!toolUses.has(block.tool_use_id)) {
          violations.push({
            rule: 'tool-result-has-use',
            path: `${at}.content[${j}].tool_use_id`,
            message: `no earlier tool use has id "${block.tool_use_id}"`,
          });
        } else if (answered.has(block.tool_use_id)) {
          violations.push({
            rule: 'tool-use-answered-once',
            path: `${at}.content[${j}].tool_use_id`,
            message: `tool use "${block.tool_use_id}" was already answered`,
          });
        }
        answered.add(block.tool_use_id);
      }
    });
  });
  return { ok: violations.length === 0, violations };
}
