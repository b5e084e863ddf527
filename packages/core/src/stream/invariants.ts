import { assertNever } from '../assert-never.js';
import { YourtoolError } from '../errors.js';
import type { ContentBlock } from '../schemas/content.js';
import type { StreamEvent } from '../schemas/stream.js';
import { StreamAccumulator } from './accumulator.js';

/** The stream rules of provider-adapter-contract §5.5, by id. */
export const STREAM_RULES = {
  'start-first': 'message.start is the first event',
  'start-once': 'message.start appears exactly once',
  'complete-last': 'nothing follows message.complete',
  'complete-present': 'the stream ends with message.complete',
  'tool-sequence':
    'each tool use is tool.use_start, then tool.use_input_delta*, then exactly one tool.use_end, in that order',
  'tool-ended': 'every tool.use_start has its tool.use_end before message.complete',
  'tool-index': 'all events of one tool use share its content_block_index',
  'tool-final-input-object': 'tool.use_end.final_input is a JSON object',
  'index-monotonic': 'content_block_index never decreases',
  'final-content-consistent':
    'message.complete.final_content holds what the deltas built, block by content_block_index',
} as const;

/** The id of a stream rule. */
export type StreamRule = keyof typeof STREAM_RULES;

/** One broken stream rule, with the position of the event that broke it. */
export interface StreamViolation {
  rule: StreamRule;
  /** Position of the offending event in the stream (the length of the stream for end rules). */
  event_index: number;
  message: string;
}

/** A stream broke the canonical rules. Names the rule and the event position. */
export class StreamInvariantError extends YourtoolError {
  /** Every violation found (the wrapper stops at the first). */
  readonly violations: StreamViolation[];

  constructor(violations: StreamViolation[]) {
    super(
      'stream_invariant_violated',
      `stream invariant violated: ${violations
        .map((v) => `[${v.rule}] event #${v.event_index}: ${v.message}`)
        .join('; ')}`,
    );
    this.violations = violations;
  }
}

/** Records a violation of the event being checked. */
type Flag = (rule: StreamRule, message: string) => void;
/** The events that carry a content_block_index. */
type IndexedEvent = Extract<StreamEvent, { content_block_index: number }>;
/** The events of a tool use after its start. */
type ToolFollowUpEvent = Extract<StreamEvent, { type: 'tool.use_input_delta' | 'tool.use_end' }>;

interface ToolState {
  index: number;
  ended: boolean;
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function describe(block: ContentBlock | undefined): string {
  return block ? block.type : 'nothing';
}

/**
 * Incremental checker of the stream rules. Feed events with {@link push}; call {@link end} when
 * the stream is over. Each call returns the violations that event revealed.
 */
export class StreamInvariantChecker {
  #count = 0;
  #started = false;
  #completed = false;
  #lastIndex = -1;
  readonly #tools = new Map<string, ToolState>();
  readonly #accumulator = new StreamAccumulator();
  readonly #indexKinds = new Map<number, Set<StreamEvent['type']>>();

  /** Checks the next event. */
  push(event: StreamEvent): StreamViolation[] {
    const at = this.#count++;
    const out: StreamViolation[] = [];
    const flag = (rule: StreamRule, message: string) =>
      out.push({ rule, event_index: at, message });

    if (this.#completed) flag('complete-last', `${event.type} after message.complete`);
    if (event.type === 'message.start') {
      if (this.#started) flag('start-once', 'a second message.start');
      else if (at !== 0) flag('start-first', `message.start at position ${at}`);
      this.#started = true;
      return out;
    }
    if (!this.#started && at === 0) flag('start-first', `${event.type} before message.start`);

    if ('content_block_index' in event) this.#checkIndex(event, flag);

    switch (event.type) {
      case 'tool.use_start': {
        if (this.#tools.has(event.tool_use_id)) {
          flag('tool-sequence', `tool.use_start repeated for ${event.tool_use_id}`);
        }
        this.#tools.set(event.tool_use_id, { index: event.content_block_index, ended: false });
        break;
      }
      case 'tool.use_input_delta':
      case 'tool.use_end':
        this.#checkToolEvent(event, flag);
        break;
      case 'message.complete': {
        if (this.#completed) flag('complete-last', 'a second message.complete');
        this.#completed = true;
        for (const [id, tool] of this.#tools) {
          if (!tool.ended) flag('tool-ended', `tool use ${id} has no tool.use_end`);
        }
        this.#checkFinalContent(event.final_content, flag);
        break;
      }
      case 'text.delta':
      case 'thinking.delta':
        break;
      default:
        assertNever(event, 'stream event');
    }
    this.#accumulator.push(event);
    return out;
  }

  /** Checks what only the end of the stream can reveal. */
  end(): StreamViolation[] {
    if (this.#completed) return [];
    return [
      {
        rule: 'complete-present',
        event_index: this.#count,
        message: this.#started
          ? 'the stream ended without message.complete'
          : 'the stream was empty',
      },
    ];
  }

  /** content_block_index never decreases; records which event kinds built each index. */
  #checkIndex(event: IndexedEvent, flag: Flag): void {
    if (event.content_block_index < this.#lastIndex) {
      flag(
        'index-monotonic',
        `${event.type} has content_block_index ${event.content_block_index} after ${this.#lastIndex}`,
      );
    }
    this.#lastIndex = Math.max(this.#lastIndex, event.content_block_index);
    let kinds = this.#indexKinds.get(event.content_block_index);
    if (!kinds) {
      kinds = new Set();
      this.#indexKinds.set(event.content_block_index, kinds);
    }
    kinds.add(event.type);
  }

  /** A tool.use_input_delta or tool.use_end: follows its start, at its index, once ended. */
  #checkToolEvent(event: ToolFollowUpEvent, flag: Flag): void {
    const tool = this.#tools.get(event.tool_use_id);
    if (!tool) {
      flag('tool-sequence', `${event.type} for ${event.tool_use_id} without tool.use_start`);
    } else {
      if (tool.ended)
        flag('tool-sequence', `${event.type} for ${event.tool_use_id} after its tool.use_end`);
      if (tool.index !== event.content_block_index) {
        flag(
          'tool-index',
          `${event.type} for ${event.tool_use_id} at index ${event.content_block_index}, started at ${tool.index}`,
        );
      }
      if (event.type === 'tool.use_end') tool.ended = true;
    }
    if (event.type === 'tool.use_end') {
      const input: unknown = event.final_input;
      if (typeof input !== 'object' || input === null || Array.isArray(input)) {
        flag('tool-final-input-object', `final_input of ${event.tool_use_id} is not a JSON object`);
      }
    }
  }

  #checkFinalContent(finalContent: ContentBlock[], flag: Flag): void {
    const built = this.#accumulator.content();
    const indexes = [...this.#indexKinds.keys()].sort((a, b) => a - b);
    let position = 0;
    for (const index of indexes) {
      // Blocks built by deltas appear in final_content at their index.
      const expected = built[position++];
      const actual = finalContent[index];
      if (!expected) continue;
      if (!actual || actual.type !== expected.type) {
        flag(
          'final-content-consistent',
          `final_content[${index}] is ${describe(actual)}, but the deltas at that index built ${expected.type}`,
        );
        continue;
      }
      if (expected.type === 'text' && actual.type === 'text' && actual.text !== expected.text) {
        flag(
          'final-content-consistent',
          `final_content[${index}].text differs from its text deltas`,
        );
      } else if (
        expected.type === 'thinking' &&
        actual.type === 'thinking' &&
        actual.text !== expected.text
      ) {
        flag(
          'final-content-consistent',
          `final_content[${index}].text differs from its thinking deltas`,
        );
      } else if (expected.type === 'tool_use' && actual.type === 'tool_use') {
        if (actual.id !== expected.id || actual.name !== expected.name) {
          flag(
            'final-content-consistent',
            `final_content[${index}] is tool use ${actual.id} (${actual.name}), the events announced ${expected.id} (${expected.name})`,
          );
        } else if (!sameJson(actual.input, expected.input)) {
          flag(
            'final-content-consistent',
            `final_content[${index}].input differs from tool.use_end.final_input`,
          );
        }
      }
    }
  }
}

/**
 * Checks a complete list of events against every stream rule. Returns all violations; an
 * empty list means the stream is valid.
 */
export function checkStreamInvariants(events: readonly StreamEvent[]): StreamViolation[] {
  const checker = new StreamInvariantChecker();
  const violations: StreamViolation[] = [];
  for (const event of events) violations.push(...checker.push(event));
  violations.push(...checker.end());
  return violations;
}

/** Throws {@link StreamInvariantError} if `events` break any stream rule. */
export function assertStreamInvariants(events: readonly StreamEvent[]): void {
  const violations = checkStreamInvariants(events);
  if (violations.length > 0) throw new StreamInvariantError(violations);
}

/**
 * Passes a live stream through unchanged, throwing {@link StreamInvariantError} at the first
 * event that breaks a rule, or at the end if `message.complete` never came. An error thrown by
 * the underlying stream passes through as is (a stream that fails before its first event has
 * no `message.complete` to check).
 */
export async function* withStreamInvariants<T extends StreamEvent>(
  stream: AsyncIterable<T>,
): AsyncGenerator<T, void, undefined> {
  const checker = new StreamInvariantChecker();
  for await (const event of stream) {
    const violations = checker.push(event);
    if (violations.length > 0) throw new StreamInvariantError(violations);
    yield event;
  }
  const violations = checker.end();
  if (violations.length > 0) throw new StreamInvariantError(violations);
}
