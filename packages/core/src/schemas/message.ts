import type { z } from 'zod';
import { numberToDecimalString } from '../decimal.js';
import { epochMicrosToTimestamp, timestampToEpochMicros } from '../ids.js';
import { builtSchema as built, lazySchema } from '../lazy-schema.js';
import { ContentBlockSchema } from './content.js';
import { RoutingDecisionRecordSchema } from './routing.js';
import { StopReasonSchema } from './stop-reason.js';

/** The version of the canonical format this code writes and fully understands. */
export const CURRENT_SCHEMA_VERSION = 1;

/** Who a message is from. TOOL and SYSTEM are first-class roles (canonical-format §2). */
export const RoleSchema = lazySchema((z) => z.enum(['user', 'assistant', 'system', 'tool']));
/** A message role. */
export type Role = z.output<typeof RoleSchema>;

/** Lifecycle of a message. Only `complete` messages must satisfy every invariant. */
export const MessageStatusSchema = lazySchema((z) =>
  z.enum(['complete', 'partial', 'cancelled', 'error']),
);
/** A message status. */
export type MessageStatus = z.output<typeof MessageStatusSchema>;

/**
 * A decimal number written as a string (`"0.000654"`), so that money never passes through a
 * binary float. Numbers found in foreign data are accepted and converted on read.
 */
export const DecimalStringSchema = lazySchema((z) =>
  z.union([
    z.string().regex(/^-?\d+(\.\d+)?$/, 'must be a decimal string such as "0.000654"'),
    z.number().refine(Number.isFinite, 'must be finite').transform(numberToDecimalString),
  ]),
);

/** The pattern of {@link TimestampSchema}. */
export const TIMESTAMP_PATTERN =
  /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/** A timestamp in canonical form: UTC, exactly six fraction digits (microseconds). */
const CANONICAL_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/**
 * ISO-8601 timestamp. Accepted with an offset and 0-9 fraction digits; read as UTC with
 * microseconds (`2026-05-08T12:00:00.123456Z`), digits past the sixth truncated, so that what is
 * stored and compared is one form.
 */
export const TimestampSchema = lazySchema((z) =>
  z
    .string()
    .regex(TIMESTAMP_PATTERN, 'must be an ISO-8601 timestamp such as "2026-05-08T12:00:00.123456Z"')
    .transform((value, ctx) => {
      if (CANONICAL_TIMESTAMP.test(value)) return value;
      try {
        return epochMicrosToTimestamp(timestampToEpochMicros(value));
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    }),
);

/**
 * Tokens and cost of one assistant message. `cost_usd` is computed locally from a price table
 * and is `null` only when the model has no price (an explicit "unpriced", never a silent zero).
 */
export const UsageSchema = lazySchema((z) =>
  z.object({
    input_tokens: z.number().int().nonnegative(),
    output_tokens: z.number().int().nonnegative(),
    cached_input_tokens: z.number().int().nonnegative().default(0),
    cache_creation_input_tokens: z.number().int().nonnegative().default(0),
    cost_usd: built(DecimalStringSchema).nullable(),
    pricing_version: z.string().nullable(),
    latency_ms: z.number().int().nonnegative(),
    /** Of `output_tokens`, how many the model spent reasoning, when the provider says. */
    reasoning_tokens: z.number().int().nonnegative().optional(),
    /**
     * What the provider itself reported the call cost (OpenRouter), kept beside `cost_usd` for
     * reconciliation, never instead of it.
     */
    provider_cost_usd: built(DecimalStringSchema).nullable().optional(),
    /** True when the provider sent no usage and the counts are local estimates. */
    estimated: z.boolean().optional(),
  }),
);
/** Usage and cost recorded on an assistant message. */
export type Usage = z.output<typeof UsageSchema>;

/** Why a reply was stored at `status: error` (see {@link MessageMetadataSchema}). */
export const MessageErrorSchema = lazySchema((z) =>
  z.looseObject({
    /** The invariant broken (`content-non-empty`, `tool-name-format`, ...) or an error class. */
    rule: z.string(),
    /** What was wrong, for people. */
    message: z.string(),
    /** Blocks of the reply that could not be kept, by type and reason. */
    dropped: z
      .array(
        z.object({ index: z.number().int().nonnegative(), type: z.string(), reason: z.string() }),
      )
      .optional(),
  }),
);
/** Why a reply was stored at `status: error`. */
export type MessageError = z.output<typeof MessageErrorSchema>;

/**
 * What an assistant reply of a turn that asked for an object records (`@yourtool/session`):
 * how it was asked (`native` structured output or the forced `tool` fallback), whether it gave
 * a valid object, its attempt under the repair policy, and why it is not valid.
 */
export const StructuredOutputRecordSchema = lazySchema((z) =>
  z.looseObject({
    mode: z.enum(['native', 'tool']),
    valid: z.boolean(),
    attempt: z.number().int().positive(),
    issues: z
      .array(z.object({ path: z.string(), rule: z.string(), message: z.string() }))
      .optional(),
    issue_count: z.number().int().nonnegative().optional(),
    cut: z.boolean().optional(),
    refused: z.boolean().optional(),
  }),
);

/**
 * Message metadata. Unknown fields are preserved (written by a newer version or another
 * implementation) so that nothing is lost when a message is read and written back.
 */
export const MessageMetadataSchema = lazySchema((z) =>
  z.looseObject({
    model: z.string().nullable().optional(),
    provider: z.string().nullable().optional(),
    routing: built(RoutingDecisionRecordSchema).nullable().optional(),
    usage: built(UsageSchema).nullable().optional(),
    parent_tool_use_id: z.string().nullable().optional(),
    status: built(MessageStatusSchema).default('complete'),
    provider_raw: z.record(z.string(), z.unknown()).nullable().optional(),
    user_id: z.string().nullable().optional(),
    team_id: z.string().nullable().optional(),
    /**
     * When true, an adapter that cannot represent one of this message's blocks fails the request
     * instead of dropping the block (canonical-format §3.3).
     */
    critical: z.boolean().optional(),
    /** Why the model stopped (assistant messages): a reply cut at `max_tokens` is not a finished one. */
    stop_reason: built(StopReasonSchema).nullable().optional(),
    /** The model that answered when it differs from or refines `model` (canonical id). */
    served_model: z.string().nullable().optional(),
    /** The provider's refusal explanation, when the reply was a refusal and the provider sent one. */
    refusal: z.string().nullable().optional(),
    /**
     * Why an assistant reply is stored at `status: error`: the invariant it broke, or the failure
     * that ended it. Requests skip such rows.
     */
    error: built(MessageErrorSchema).nullable().optional(),
    /** The object a turn asked for: whether this reply gave a valid one (see the schema). */
    structured_output: built(StructuredOutputRecordSchema).nullable().optional(),
  }),
);
/** Message metadata. */
export type MessageMetadata = z.output<typeof MessageMetadataSchema>;

/**
 * The metadata field names this version of the format knows: the keys of
 * {@link MessageMetadataSchema}, written out so that reading them builds no schema.
 */
export const KNOWN_METADATA_FIELDS: readonly string[] = [
  'model',
  'provider',
  'routing',
  'usage',
  'parent_tool_use_id',
  'status',
  'provider_raw',
  'user_id',
  'team_id',
  'critical',
  'stop_reason',
  'served_model',
  'refusal',
  'error',
  'structured_output',
];

/** A canonical message: a role and an ordered list of content blocks. */
export const MessageSchema = lazySchema((z) =>
  z.object({
    id: z.string().min(1, 'message id must not be empty'),
    session_id: z.string().min(1, 'session_id must not be empty'),
    role: built(RoleSchema),
    content: z.array(built(ContentBlockSchema)),
    metadata: built(MessageMetadataSchema),
    created_at: built(TimestampSchema),
    schema_version: z.number().int().positive(),
  }),
);
/** A canonical message. */
export type Message = z.output<typeof MessageSchema>;
/** A canonical message as accepted on input (defaults not yet applied). */
export type MessageInput = z.input<typeof MessageSchema>;
