import { quickParseValue } from './fast-parse.js';
import { isUlid } from './ids.js';
import { parseModelId } from './model-id.js';
import { issuesFromZod } from './parse.js';
import type { ContentBlock, ToolResultBlock, ToolUseBlock } from './schemas/content.js';
import {
  CURRENT_SCHEMA_VERSION,
  type Message,
  MessageSchema,
  type Role,
} from './schemas/message.js';
import type { ToolDefinition } from './schemas/tool.js';
import { CANONICAL_TOOL_NAME_RULES, fitsToolNameRules, type ToolNameRules } from './tool-names.js';
import { validateToolInput } from './tool-schema.js';
import { imageBlockViolations, quoteStart } from './validate-image.js';
import type { MessageViolation, ValidationResult } from './validation-rules.js';

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
    if (inner.type === 'image')
      violations.push(...imageBlockViolations(inner, `${path}.content[${j}]`));
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
  else if (block.type === 'image') violations.push(...imageBlockViolations(block, path));
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
  // a message in the usual shape passes the quick check, whose result equals the schema's
  // (decision 0104); the schema decides the rest, with its error paths
  const quick = quickParseValue(input);
  let message: Message;
  if (quick) message = quick;
  else {
    const parsed = MessageSchema.safeParse(input);
    if (!parsed.success) {
      return {
        ok: false,
        violations: issuesFromZod(parsed.error).map((i) => ({ rule: 'schema', ...i })),
      };
    }
    message = parsed.data;
  }
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
