import {
  AdapterError,
  type ContentBlock,
  isAdapterError,
  type Logger,
  type Message,
  type MessageError,
  type MessageViolation,
  type StopReason,
  validateMessage,
} from '@yourtool/core';
import { checkJsonDepth, STRICT_TOOL_NAME_RULES } from '@yourtool/core/adapter';

/**
 * A rule a reply broke: a canonical invariant (core's `validateMessage`), or `json-depth` (a
 * tool input nested past the depth a store can hold).
 */
export type ReplyViolation = Omit<MessageViolation, 'rule'> & {
  rule: MessageViolation['rule'] | 'json-depth';
};

/** What {@link InvalidReplyError} carries besides its message. */
export interface InvalidReplyDetails {
  /** The stored assistant message (status `error`) that holds what could be kept. */
  message_id: string;
  /** Why the model stopped, as the provider said. */
  stop_reason: StopReason;
  /** The reply's text that was kept (possibly empty). */
  text: string;
  /** The invariants the reply broke. */
  violations: ReadonlyArray<Pick<ReplyViolation, 'rule' | 'path' | 'message'>>;
  request_id?: string;
  provider?: string;
}

/**
 * A model's reply broke a canonical invariant (no content at all, a tool name outside the
 * canonical rule, a tool input nested too deep). The call was billed and its reply stored as a
 * finished row at `status: error` with what could be kept; the turn ends with this error, which
 * carries the kept text. Another model would not be asked: it is not a provider failure.
 */
export class InvalidReplyError extends AdapterError {
  /** The stored assistant message holding the kept part of the reply. */
  readonly message_id: string;
  /** Why the model stopped. */
  readonly stop_reason: StopReason;
  /** The kept text of the reply. */
  readonly text: string;
  /** The invariants the reply broke. */
  readonly violations: ReadonlyArray<Pick<ReplyViolation, 'rule' | 'path' | 'message'>>;

  constructor(message: string, details: InvalidReplyDetails) {
    super('other', message, {
      ...(details.request_id ? { request_id: details.request_id } : {}),
      ...(details.provider ? { provider: details.provider } : {}),
    });
    this.message_id = details.message_id;
    this.stop_reason = details.stop_reason;
    this.text = details.text;
    this.violations = details.violations;
  }
}

/** Whether `value` is an {@link InvalidReplyError} (by name and shape, across copies). */
export function isInvalidReplyError(value: unknown): value is InvalidReplyError {
  return (
    isAdapterError(value) &&
    value.name === 'InvalidReplyError' &&
    typeof (value as { message_id?: unknown }).message_id === 'string'
  );
}

/** A reply checked before it is stored: as it came, or reduced to what can be kept. */
export interface CheckedReply {
  /** The message to store: unchanged when valid, else at `status: error` with `metadata.error`. */
  message: Message;
  /** The broken invariants (empty when the reply is valid). */
  violations: ReplyViolation[];
  /**
   * Whether `message` passed the schema (and, when complete, the invariants), so that it may be
   * sealed and stored without being checked again. False for a reduced reply, which the store
   * checks in full.
   */
  valid: boolean;
}

const BLOCK_PATH = /^content\[(\d+)\]/;

/** The content block index a violation's path points into, if any. */
function blockIndexOf(violation: ReplyViolation): number | null {
  const match = BLOCK_PATH.exec(violation.path);
  return match ? Number(match[1]) : null;
}

/** Tool inputs nested past the JSON depth limit: they cannot be stored or validated safely. */
function depthViolations(message: Message): ReplyViolation[] {
  const violations: ReplyViolation[] = [];
  message.content.forEach((block, index) => {
    if (block.type !== 'tool_use') return;
    const depth = checkJsonDepth(block.input);
    if (!depth.ok) {
      violations.push({
        rule: 'json-depth',
        path: `content[${index}].input${depth.path ? `.${depth.path}` : ''}`,
        message: `tool input nests deeper than ${depth.maxDepth} levels`,
      });
    }
  });
  return violations;
}

/**
 * Checks a finished assistant reply against the canonical format, once: this is the one schema
 * check a reply gets on its way to the store. A complete reply that breaks an invariant is kept
 * as far as it can be: the offending blocks are dropped (and listed), the rest stays, and the
 * message is marked `status: error` with `metadata.error` naming the rule, so that it is stored
 * as a finished row and never replayed as if valid. A reply that did not finish (cancelled,
 * error) is bound by the schema only.
 */
export function checkReply(message: Message): CheckedReply {
  const deep = depthViolations(message);
  if (message.metadata.status !== 'complete') {
    // a reply cut short may break the complete-only rules; one the schema refuses, the store refuses
    if (deep.length > 0) return { message, violations: [], valid: false };
    const schema = validateMessage(message).violations.some((v) => v.rule === 'schema');
    return { message, violations: [], valid: !schema };
  }
  // a reply's tool names are held to what every provider takes (a stored history is not: 0159)
  const violations: ReplyViolation[] =
    deep.length > 0
      ? deep
      : validateMessage(message, { toolNameRules: STRICT_TOOL_NAME_RULES }).violations;
  if (violations.length === 0) return { message, violations, valid: true };
  return { message: reducedReply(message, violations), violations, valid: false };
}

/** The reply without the blocks that break an invariant, at `status: error` saying why. */
function reducedReply(message: Message, violations: ReplyViolation[]): Message {
  const droppedIndexes = new Set(
    violations.map(blockIndexOf).filter((index): index is number => index !== null),
  );
  const dropped: NonNullable<MessageError['dropped']> = [];
  const kept: ContentBlock[] = [];
  message.content.forEach((block, index) => {
    if (!droppedIndexes.has(index)) {
      kept.push(block);
      return;
    }
    const reasons = violations
      .filter((v) => blockIndexOf(v) === index)
      .map((v) => v.message)
      .join('; ');
    dropped.push({ index, type: block.type, reason: reasons });
  });
  const first = violations[0] as ReplyViolation;
  const error: MessageError = {
    rule: first.rule,
    message: violations.map((v) => `${v.path}: ${v.message}`).join('; '),
    ...(dropped.length > 0 ? { dropped } : {}),
  };
  return { ...message, content: kept, metadata: { ...message.metadata, status: 'error', error } };
}

/**
 * The typed error a turn ends with when its reply broke an invariant, logged at WARN: the reply
 * was billed and is stored (status `error`), and another model would not be asked.
 */
export function invalidReplyError(
  stored: Message,
  violations: readonly ReplyViolation[],
  call: { request_id: string; provider: string },
  logger: Logger,
): InvalidReplyError {
  const stop_reason = stored.metadata.stop_reason ?? 'end_turn';
  const what = violations.map((v) => `${v.path}: ${v.message}`).join('; ');
  logger.warn(
    {
      event: 'assistant_reply_invalid',
      session_id: stored.session_id,
      message_id: stored.id,
      model: stored.metadata.model ?? null,
      stop_reason,
      violations: violations.map((v) => ({ rule: v.rule, path: v.path })),
    },
    'stored a reply that breaks an invariant at status error; it will not be replayed',
  );
  const cut = stop_reason === 'max_tokens' ? ' (it stopped at the output token limit)' : '';
  return new InvalidReplyError(
    `the reply of ${stored.metadata.model ?? 'the model'} breaks an invariant${cut}: ${what}`,
    {
      message_id: stored.id,
      stop_reason,
      text: textOf(stored),
      violations: violations.map((v) => ({ rule: v.rule, path: v.path, message: v.message })),
      request_id: call.request_id,
      provider: call.provider,
    },
  );
}

/** The text of a message's text blocks, joined. */
export function textOf(message: Message): string {
  return message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
}
