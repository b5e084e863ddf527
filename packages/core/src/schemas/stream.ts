import type { z } from 'zod';
import { builtSchema as built, lazySchema } from '../lazy-schema.js';
import { StopReasonSchema, TokenUsageSchema } from './adapter.js';
import { ContentBlockSchema } from './content.js';

/*
 * The canonical stream protocol. One adapter call produces one message; its events obey the
 * rules checked by `checkStreamInvariants` (provider-adapter-contract §5.5):
 *
 * 1. `message.start` is the first event, exactly once.
 * 2. Each tool use is `tool.use_start`, zero or more `tool.use_input_delta`, then exactly one
 *    `tool.use_end`, in that order, all with the same `tool_use_id` and `content_block_index`.
 * 3. `tool.use_end.final_input` is a JSON object.
 * 4. `message.complete` is the last event, exactly once; its `final_content` holds what the
 *    deltas built (block `content_block_index` of `final_content` is the block the deltas with
 *    that index built), plus blocks the provider sent whole (redacted thinking).
 * 5. `content_block_index` never decreases.
 *
 * `partial_json` is the raw provider fragment, never a parsed object.
 */

const blockIndex = lazySchema((z) => z.number().int().nonnegative());

/** First event of every stream. */
export const MessageStartEventSchema = lazySchema((z) =>
  z.object({
    type: z.literal('message.start'),
    request_id: z.string(),
    model: z.string(),
    provider: z.string(),
  }),
);

/** A piece of assistant text for block `content_block_index`. */
export const TextDeltaEventSchema = lazySchema((z) =>
  z.object({
    type: z.literal('text.delta'),
    content_block_index: built(blockIndex),
    text: z.string(),
  }),
);

/**
 * A piece of thinking text. The last delta of a signed thinking block carries `signature`
 * (possibly with empty `text`).
 */
export const ThinkingDeltaEventSchema = lazySchema((z) =>
  z.object({
    type: z.literal('thinking.delta'),
    content_block_index: built(blockIndex),
    text: z.string(),
    signature: z.string().optional(),
  }),
);

/** A tool use begins. `tool_use_id` is canonical (`tu_<ulid>`). */
export const ToolUseStartEventSchema = lazySchema((z) =>
  z.object({
    type: z.literal('tool.use_start'),
    content_block_index: built(blockIndex),
    tool_use_id: z.string(),
    tool_name: z.string(),
  }),
);

/** A raw fragment of the tool input JSON, exactly as the provider sent it. */
export const ToolUseInputDeltaEventSchema = lazySchema((z) =>
  z.object({
    type: z.literal('tool.use_input_delta'),
    content_block_index: built(blockIndex),
    tool_use_id: z.string(),
    partial_json: z.string(),
  }),
);

/** A tool use is complete; `final_input` is the parsed input (`{}` if nothing parsed). */
export const ToolUseEndEventSchema = lazySchema((z) =>
  z.object({
    type: z.literal('tool.use_end'),
    content_block_index: built(blockIndex),
    tool_use_id: z.string(),
    final_input: z.record(z.string(), z.unknown()),
  }),
);

/** Last event of every stream: the whole reply, why it stopped, and usage. */
export const MessageCompleteEventSchema = lazySchema((z) =>
  z.object({
    type: z.literal('message.complete'),
    request_id: z.string(),
    final_content: z.array(built(ContentBlockSchema)),
    stop_reason: built(StopReasonSchema),
    usage: built(TokenUsageSchema),
    latency_ms: z.number().int().nonnegative(),
    provider_raw: z.record(z.string(), z.unknown()).nullable().optional(),
    /** The provider's own id of the reply, when it sends one (see CanonicalResponse). */
    provider_response_id: z.string().nullable().optional(),
    /** The model that answered, as a canonical id, when the provider says (see CanonicalResponse). */
    served_model: z.string().nullable().optional(),
    /** The provider's refusal explanation, when it sends one (see CanonicalResponse). */
    refusal: z.string().nullable().optional(),
  }),
);

/** Every canonical stream event, discriminated by `type`. */
export const StreamEventSchema = lazySchema((z) =>
  z.discriminatedUnion('type', [
    built(MessageStartEventSchema),
    built(TextDeltaEventSchema),
    built(ThinkingDeltaEventSchema),
    built(ToolUseStartEventSchema),
    built(ToolUseInputDeltaEventSchema),
    built(ToolUseEndEventSchema),
    built(MessageCompleteEventSchema),
  ]),
);

/** `message.start` */
export type MessageStartEvent = z.output<typeof MessageStartEventSchema>;
/** `text.delta` */
export type TextDeltaEvent = z.output<typeof TextDeltaEventSchema>;
/** `thinking.delta` */
export type ThinkingDeltaEvent = z.output<typeof ThinkingDeltaEventSchema>;
/** `tool.use_start` */
export type ToolUseStartEvent = z.output<typeof ToolUseStartEventSchema>;
/** `tool.use_input_delta` */
export type ToolUseInputDeltaEvent = z.output<typeof ToolUseInputDeltaEventSchema>;
/** `tool.use_end` */
export type ToolUseEndEvent = z.output<typeof ToolUseEndEventSchema>;
/** `message.complete` */
export type MessageCompleteEvent = z.output<typeof MessageCompleteEventSchema>;
/** A canonical stream event. */
export type StreamEvent = z.output<typeof StreamEventSchema>;
/** The `type` of a canonical stream event. */
export type StreamEventType = StreamEvent['type'];
