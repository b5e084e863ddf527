import { newMessageId, nowTimestamp } from './ids.js';
import { issuesFromZod, MessageParseError } from './parse.js';
import { quickFreshMessage } from './quick-request.js';
import type { ContentBlock } from './schemas/content.js';
import {
  CURRENT_SCHEMA_VERSION,
  type Message,
  type MessageMetadata,
  MessageSchema,
  type Role,
} from './schemas/message.js';

/** What {@link createMessage} needs; everything else is generated. */
export interface CreateMessageInput {
  session_id: string;
  role: Role;
  content: ContentBlock[];
  metadata?: Partial<MessageMetadata>;
  /** Defaults to a new monotonic ULID. */
  id?: string;
  /** Defaults to now (UTC, microseconds). */
  created_at?: string;
}

/**
 * Builds a canonical message with a new ULID id, the current timestamp and schema version, and
 * default metadata (`status: complete`). Validates the shape and throws
 * {@link MessageParseError} naming any bad path.
 */
export function createMessage(input: CreateMessageInput): Message {
  const candidate = {
    id: input.id ?? newMessageId(),
    session_id: input.session_id,
    role: input.role,
    content: input.content,
    metadata: { status: 'complete', ...input.metadata },
    created_at: input.created_at ?? nowTimestamp(),
    schema_version: CURRENT_SCHEMA_VERSION,
  };
  // a well-formed message is built without zod (decision 0198); the schema names what is wrong
  const quick = quickFreshMessage(candidate);
  if (quick) return quick;
  const parsed = MessageSchema.safeParse(candidate);
  if (!parsed.success) throw new MessageParseError(issuesFromZod(parsed.error), candidate.id);
  return parsed.data;
}

/** Concatenates the text blocks of a content list (tool results included), separated by blank lines. */
export function contentText(content: readonly ContentBlock[]): string {
  const parts: string[] = [];
  for (const block of content) {
    if (block.type === 'text') parts.push(block.text);
    else if (block.type === 'tool_result') {
      for (const inner of block.content) if (inner.type === 'text') parts.push(inner.text);
    }
  }
  return parts.join('\n\n');
}
