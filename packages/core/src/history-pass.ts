import { InvalidRequestError } from './errors.js';
import { asToolReply } from './history-tool-reply.js';
import type { HistoryRepair, PrepareHistoryOptions, ReplayTarget } from './history-types.js';
import { type Logger, silentLogger } from './logger.js';
import { type DroppedBlock, reportDroppedBlock } from './lossy.js';
import type { AdapterCapabilities } from './schemas/adapter.js';
import type {
  ContentBlock,
  ImageBlock,
  RedactedThinkingBlock,
  ThinkingBlock,
  ToolResultBlock,
  ToolResultContentBlock,
  ToolUseBlock,
} from './schemas/content.js';
import type { Message } from './schemas/message.js';

// The passes of core's `prepareHistory` (history.ts): pass 1 filters each message on its own
// and collects tool results, pass 2 pairs tool uses with their results.

/** Text of the tool result inserted for a tool use that has no recorded result. */
export const MISSING_TOOL_RESULT_TEXT =
  'No result was recorded for this tool call (the turn ended before the tool answered).';

const ROLE_BLOCKS: Record<Message['role'], ReadonlySet<ContentBlock['type']>> = {
  user: new Set(['text', 'image', 'tool_result']),
  assistant: new Set(['text', 'tool_use', 'thinking', 'redacted_thinking']),
  system: new Set(['text']),
  tool: new Set(['tool_result']),
};

const NOT_WHITESPACE = /\S/;

/** Whether a text is empty or whitespace only (what `trim()` would empty), without copying it. */
export function isBlank(text: string): boolean {
  return !NOT_WHITESPACE.test(text);
}

export type ThinkingFilter = NonNullable<PrepareHistoryOptions['keepThinking']>;

/** A tool result found in pass 1, with the position of the message that carried it. */
export interface CollectedResult {
  message: Message;
  block: ToolResultBlock;
  origin: number;
}

/** What pass 1 collects over a run of messages; pass 2 adds its repairs. */
export interface Taken {
  /** The text of SYSTEM messages (the request's system prompt is not in it). */
  systemParts: string[];
  /** Pass 1's USER and ASSISTANT messages, filtered. */
  conversation: Message[];
  /** The position in the input of each `conversation` message. */
  conversationOrigin: number[];
  /** The ids of the tool uses in `conversation`, in order. */
  toolUseIds: string[];
  results: CollectedResult[];
  dropped: DroppedBlock[];
  repairs: HistoryRepair[];
}

/** Nothing taken yet. */
export function emptyTaken(): Taken {
  return {
    systemParts: [],
    conversation: [],
    conversationOrigin: [],
    toolUseIds: [],
    results: [],
    dropped: [],
    repairs: [],
  };
}

/**
 * One run of `prepareHistory`: the target, the options, and what the passes collect.
 * Methods rather than closures, so nothing is allocated per message beyond the output.
 */
export class HistoryPass {
  readonly target: ReplayTarget;
  readonly options: PrepareHistoryOptions;
  readonly logger: Logger;
  readonly caps: AdapterCapabilities;
  readonly keepThinking: ThinkingFilter;
  /** What pass 1 collected (and pass 2 adds its repairs to). */
  taken: Taken;

  constructor(
    target: ReplayTarget,
    options: PrepareHistoryOptions,
    taken: Taken = emptyTaken(),
    keepThinking?: ThinkingFilter,
  ) {
    this.target = target;
    this.options = options;
    this.logger = options.logger ?? silentLogger;
    const caps = target.capabilities;
    this.caps = caps;
    this.keepThinking =
      keepThinking ??
      options.keepThinking ??
      ((_block: ThinkingBlock | RedactedThinkingBlock, message: Message) =>
        caps.supports_thinking && message.metadata.model === target.model);
    this.taken = taken;
  }

  drop(message: Message, block_type: string, block_index: number, reason: string): void {
    this.taken.dropped.push(
      reportDroppedBlock(this.logger, message, {
        block_type,
        adapter: this.target.adapter,
        reason,
        block_index,
      }),
    );
  }

  repair(r: HistoryRepair): void {
    this.taken.repairs.push(r);
    this.logger.warn(
      { event: 'history_repaired', adapter: this.target.adapter, ...r, reason: r.detail },
      r.detail,
    );
  }

  imageProblem(image: ImageBlock): string | null {
    const caps = this.caps;
    if (!caps.supports_images) return `${this.target.model} does not accept images`;
    if (image.source.kind === 'file_ref' && !this.options.keepFileRefImages) {
      return 'file_ref images must be resolved to base64 or a URL before they can be sent';
    }
    const accepted = caps.accepted_image_media_types;
    if (accepted.length > 0 && !accepted.includes(image.media_type)) {
      return `${this.target.model} does not accept ${image.media_type} images`;
    }
    return null;
  }

  filterResultContent(message: Message, result: ToolResultBlock, index: number): ToolResultBlock {
    const content: ToolResultContentBlock[] = [];
    for (const inner of result.content) {
      if (inner.type === 'text') {
        if (!isBlank(inner.text)) content.push(inner);
      } else {
        const problem = this.imageProblem(inner);
        if (problem)
          this.drop(message, 'image', index, `in tool result ${result.tool_use_id}: ${problem}`);
        else content.push(inner);
      }
    }
    return content.length === result.content.length ? result : { ...result, content };
  }

  /** Pass 1 for one message: hoists system text, skips, filters blocks, collects results. */
  take(message: Message, origin: number): void {
    if (message.role === 'system') {
      this.takeSystem(message);
      return;
    }
    if (this.skipped(message)) return;
    const content = message.content;
    const allowed = ROLE_BLOCKS[message.role];
    // null while every block so far is kept as it is
    let kept: ContentBlock[] | null = null;
    for (let index = 0; index < content.length; index++) {
      const block = content[index] as ContentBlock;
      if (!allowed.has(block.type)) {
        kept ??= content.slice(0, index);
        this.drop(
          message,
          block.type,
          index,
          `a ${message.role} message cannot carry a ${block.type} block`,
        );
        continue;
      }
      const keep = this.keepBlock(message, block, index, origin);
      if (!keep) kept ??= content.slice(0, index);
      else if (kept !== null) kept.push(block);
    }
    if (message.role === 'tool') return;
    const finalContent: ContentBlock[] = kept ?? content;
    if (finalContent.length === 0) return;
    const { taken } = this;
    taken.conversation.push(
      finalContent === content ? message : { ...message, content: finalContent },
    );
    taken.conversationOrigin.push(origin);
    if (message.role === 'assistant') {
      for (const block of finalContent)
        if (block.type === 'tool_use') taken.toolUseIds.push(block.id);
    }
  }

  takeSystem(message: Message): void {
    const content = message.content;
    for (let index = 0; index < content.length; index++) {
      const block = content[index] as ContentBlock;
      if (block.type === 'text') {
        if (!isBlank(block.text)) this.taken.systemParts.push(block.text);
      } else {
        this.drop(message, block.type, index, 'system messages carry text only');
      }
    }
  }

  /** Whether a message is left out whole: still streaming, or a reply that ended in error. */
  skipped(message: Message): boolean {
    if (message.metadata.status === 'partial') {
      this.repair({
        kind: 'partial_message_skipped',
        session_id: message.session_id,
        message_id: message.id,
        block_type: 'message',
        detail: `skipped message ${message.id}: it is still streaming (status partial)`,
      });
      return true;
    }
    // A reply that failed or broke an invariant is kept in the store, never replayed as if valid.
    if (message.metadata.status === 'error' && message.role === 'assistant') {
      const why = message.metadata.error?.message;
      this.repair({
        kind: 'error_message_skipped',
        session_id: message.session_id,
        message_id: message.id,
        block_type: 'message',
        detail: `skipped message ${message.id}: the reply ended in error${why ? ` (${why})` : ''}`,
      });
      return true;
    }
    return false;
  }

  /** Whether a block its role allows stays where it is (a tool result is collected instead). */
  keepBlock(message: Message, block: ContentBlock, index: number, origin: number): boolean {
    const target = this.target;
    switch (block.type) {
      case 'text':
        return !isBlank(block.text);
      case 'image': {
        const problem = this.imageProblem(block);
        if (!problem) return true;
        this.drop(message, 'image', index, problem);
        return false;
      }
      case 'thinking':
      case 'redacted_thinking': {
        if (block.type === 'thinking' && isBlank(block.text) && !block.signature) return false;
        const keepThinking = this.keepThinking;
        if (keepThinking(block, message)) return true;
        this.drop(
          message,
          block.type,
          index,
          `${block.type} from ${message.metadata.model ?? 'an unknown model'} can only be replayed to the model that produced it`,
        );
        return false;
      }
      case 'tool_use':
        if (this.caps.supports_tools) return true;
        this.drop(message, 'tool_use', index, `${target.model} does not support tools`);
        return false;
      case 'tool_result':
        if (this.caps.supports_tools)
          this.taken.results.push({
            message,
            block: this.filterResultContent(message, block, index),
            origin,
          });
        else this.drop(message, 'tool_result', index, `${target.model} does not support tools`);
        return false;
    }
    return false;
  }

  /** Pass 2a: the results that answer a tool use of the conversation, first one per use. */
  resultsById(): Map<string, CollectedResult> {
    const toolUseIds = new Set(this.taken.toolUseIds);
    const resultById = new Map<string, CollectedResult>();
    for (const found of this.taken.results) {
      const { message, block } = found;
      if (!toolUseIds.has(block.tool_use_id)) {
        this.repair({
          kind: 'orphan_tool_result_dropped',
          session_id: message.session_id,
          message_id: message.id,
          block_type: 'tool_result',
          tool_use_id: block.tool_use_id,
          detail: `dropped the result for ${block.tool_use_id}: no tool use in the history has that id`,
        });
      } else if (resultById.has(block.tool_use_id)) {
        this.repair({
          kind: 'duplicate_tool_result_dropped',
          session_id: message.session_id,
          message_id: message.id,
          block_type: 'tool_result',
          tool_use_id: block.tool_use_id,
          detail: `dropped a second result for ${block.tool_use_id}`,
        });
      } else {
        resultById.set(block.tool_use_id, found);
      }
    }
    return resultById;
  }

  /** Pass 2b: the conversation with each tool use's result right after its assistant turn. */
  paired(resultById: ReadonlyMap<string, CollectedResult>): Message[] {
    const out: Message[] = [];
    const { conversation, conversationOrigin } = this.taken;
    for (let position = 0; position < conversation.length; position++) {
      const message = conversation[position] as Message;
      out.push(message);
      if (message.role !== 'assistant') continue;
      const origin = conversationOrigin[position] ?? -1;
      const nextOrigin = conversationOrigin[position + 1] ?? Number.POSITIVE_INFINITY;
      for (const block of message.content) {
        if (block.type !== 'tool_use') continue;
        const found = resultById.get(block.id);
        if (!found) {
          out.push(this.missingResult(message, block));
          continue;
        }
        if (found.origin < origin || found.origin > nextOrigin) {
          this.repair({
            kind: 'tool_result_moved',
            session_id: found.message.session_id,
            message_id: found.message.id,
            block_type: 'tool_result',
            tool_use_id: block.id,
            detail: `moved the result for ${block.id} to follow its tool use directly`,
          });
        }
        out.push(asToolReply(found.message, found.block, block.id));
      }
    }
    return out;
  }

  /** The error result sent for a tool use that has none recorded (logged as a repair). */
  missingResult(message: Message, block: ToolUseBlock): Message {
    this.repair({
      kind: 'synthetic_tool_result',
      session_id: message.session_id,
      message_id: message.id,
      block_type: 'tool_result',
      tool_use_id: block.id,
      detail: `tool use ${block.id} (${block.name}) has no result; sending an error result saying none was recorded`,
    });
    return {
      id: `${message.id}_missing_${block.id}`,
      session_id: message.session_id,
      role: 'tool',
      content: [
        {
          type: 'tool_result',
          tool_use_id: block.id,
          content: [{ type: 'text', text: MISSING_TOOL_RESULT_TEXT }],
          is_error: true,
        },
      ],
      metadata: { status: 'complete', parent_tool_use_id: block.id },
      created_at: message.created_at,
      schema_version: message.schema_version,
    };
  }

  /**
   * Providers refuse (or answer nonsense to) a request without a conversation turn; says what
   * emptied it instead of sending `messages: []`.
   */
  nothingToSend(messageCount: number): InvalidRequestError {
    const { target } = this;
    const { dropped } = this.taken;
    const why =
      messageCount === 0
        ? 'the request has no messages'
        : `none of its ${messageCount} message(s) has content ${target.model} can take` +
          (dropped.length > 0
            ? ` (dropped: ${dropped
                .slice(0, 5)
                .map((d) => `${d.block_type} in ${d.message_id}: ${d.reason}`)
                .join('; ')}${dropped.length > 5 ? '; ...' : ''})`
            : ' (every message was empty, a system message or still streaming)');
    return new InvalidRequestError(`nothing to send to ${target.model}: ${why}`, {
      provider: target.adapter,
      retryable: false,
    });
  }
}
