import {
  AdapterError,
  type ContentBlock,
  checkJsonDepth,
  isAdapterError,
  type Message,
  type MessageError,
  type MessageViolation,
  type StopReason,
  validateMessage,
} from '@yourtool/core';

/** What {@link InvalidReplyError} carries besides its message. */
export interface InvalidReplyDetails {
  /** The stored assistant message (status `error`) that holds what could be kept. */
  message_id: string;
  /** Why the model stopped, as the provider said. */
  stop_reason: StopReason;
  /** The reply's text that was kept (possibly empty). */
  text: string;
  /** The invariants the reply broke. */
  violations: ReadonlyArray<Pick<MessageViolation, 'rule' | 'path' | 'message'>>;
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
  readonly violations: ReadonlyArray<Pick<MessageViolation, 'rule' | 'path' | 'message'>>;

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
  violations: MessageViolation[];
}

const BLOCK_PATH = /^content\[(\d+)\]/;

/** The content block index a violation's path points into, if any. */
function blockIndexOf(violation: MessageViolation): number | null {
  const match = BLOCK_PATH.exec(violation.path);
  return match ? Number(match[1]) : null;
}

/**
 * Checks a finished assistant reply against the canonical invariants. A reply that breaks one is
 * kept as far as it can be: the offending blocks are dropped (and listed), the rest stays, and
 * the message is marked `status: error` with `metadata.error` naming the rule, so that it is
 * stored as a finished row and never replayed as if valid.
 */
export function checkReply(message: Message): CheckedReply {
  if (message.metadata.status !== 'complete') return { message, violations: [] };
  // Depth first: a value nested past the limit cannot be stored or even validated safely.
  const violations: MessageViolation[] = [];
  message.content.forEach((block, index) => {
    if (block.type !== 'tool_use') return;
    const depth = checkJsonDepth(block.input);
    if (!depth.ok) {
      violations.push({
        rule: 'json-depth',
        path: `content[${index}].input${depth.path ? `.${depth.path}` : ''}`,
        message: `tool input nests deeper than ${depth.maxDepth} levels`,
      } as MessageViolation);
    }
  });
  if (violations.length === 0) {
    const result = validateMessage(message);
    if (result.ok) return { message, violations: [] };
    violations.push(...result.violations);
  }
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
  const first = violations[0] as MessageViolation;
  const error: MessageError = {
    rule: first.rule,
    message: violations.map((v) => `${v.path}: ${v.message}`).join('; '),
    ...(dropped.length > 0 ? { dropped } : {}),
  };
  return {
    message: {
      ...message,
      content: kept,
      metadata: { ...message.metadata, status: 'error', error },
    },
    violations,
  };
}

/** The text of a message's text blocks, joined. */
export function textOf(message: Message): string {
  return message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
}
