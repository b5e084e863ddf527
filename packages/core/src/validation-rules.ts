import { CURRENT_SCHEMA_VERSION } from './schemas/message.js';

// The rule ids `validateMessage` and `validateHistory` report, and the shape of a report: a file
// of their own so the message, image and history checks share them without importing each other.

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
