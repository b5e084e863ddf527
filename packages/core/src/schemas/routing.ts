import type { z } from 'zod';
import { ErrorClassSchema } from '../errors.js';
import { builtSchema as built, lazySchema } from '../lazy-schema.js';

/**
 * Coarse summary of why a turn picked its model, persisted on each assistant message
 * (canonical-format §4.3). The finer chain step lives in {@link RoutingPolicy} and the
 * `route.decided` event.
 */
export const RoutingModeSchema = lazySchema((z) =>
  z.enum(['override', 'manual', 'rule', 'pattern', 'delegate', 'default']),
);
/** Coarse routing mode. */
export type RoutingMode = z.output<typeof RoutingModeSchema>;

/** The steps of the routing chain, in the order they are tried. */
export const RoutingPolicySchema = lazySchema((z) =>
  z.enum([
    'PER_MESSAGE_OVERRIDE',
    'MANUAL_STICKY',
    'RULE',
    'PATTERN',
    'DELEGATE_REQUEST',
    'WORKSPACE_DEFAULT',
    'GLOBAL_DEFAULT',
  ]),
);
/** A step of the routing chain. */
export type RoutingPolicy = z.output<typeof RoutingPolicySchema>;

const POLICY_TO_MODE: Record<RoutingPolicy, RoutingMode> = {
  PER_MESSAGE_OVERRIDE: 'override',
  MANUAL_STICKY: 'manual',
  RULE: 'rule',
  PATTERN: 'pattern',
  DELEGATE_REQUEST: 'delegate',
  WORKSPACE_DEFAULT: 'default',
  GLOBAL_DEFAULT: 'default',
};

/**
 * Projects a routing chain step onto the coarse mode stored on messages (canonical-format
 * §4.3): both default levels collapse to `default`.
 */
export function routingModeForPolicy(policy: RoutingPolicy): RoutingMode {
  return POLICY_TO_MODE[policy];
}

/** A model that failed during a turn and was replaced by a fallback. */
export const FallbackAttemptSchema = lazySchema((z) =>
  z.object({
    /** Canonical id of the model that failed. */
    model: z.string().min(1),
    /** How it failed. */
    error_class: built(ErrorClassSchema),
    /** The failure's message, for people (redacted like every adapter error). */
    reason: z.string(),
  }),
);
/** A failed attempt recorded on a fallback's routing record. */
export type FallbackAttempt = z.output<typeof FallbackAttemptSchema>;

/** Compact record of a routing decision, attached to an assistant message's metadata. */
export const RoutingDecisionRecordSchema = lazySchema((z) =>
  z.object({
    mode: built(RoutingModeSchema),
    chosen_model: z.string().min(1),
    reason: z.string(),
    rule_name: z.string().nullable().optional(),
    confidence: z.number().min(0).max(1).nullable().optional(),
    alternatives_considered: z.array(z.string()).default([]),
    /**
     * The earlier attempts of this turn that failed before this model was chosen as their
     * fallback, oldest first (an extension of canonical-format §4.3; absent when the first choice
     * answered). See docs/decisions/0090.
     */
    fallback_from: z.array(built(FallbackAttemptSchema)).optional(),
  }),
);
/** A routing decision record. */
export type RoutingDecisionRecord = z.output<typeof RoutingDecisionRecordSchema>;
