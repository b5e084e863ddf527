import { z } from 'zod';

/**
 * Coarse summary of why a turn picked its model, persisted on each assistant message
 * (canonical-format §4.3). The finer chain step lives in {@link RoutingPolicy} and the
 * `route.decided` event.
 */
export const RoutingModeSchema = z.enum([
  'override',
  'manual',
  'rule',
  'pattern',
  'delegate',
  'default',
]);
/** Coarse routing mode. */
export type RoutingMode = z.output<typeof RoutingModeSchema>;

/** The steps of the routing chain, in the order they are tried. */
export const RoutingPolicySchema = z.enum([
  'PER_MESSAGE_OVERRIDE',
  'MANUAL_STICKY',
  'RULE',
  'PATTERN',
  'DELEGATE_REQUEST',
  'WORKSPACE_DEFAULT',
  'GLOBAL_DEFAULT',
]);
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

/** Compact record of a routing decision, attached to an assistant message's metadata. */
export const RoutingDecisionRecordSchema = z.object({
  mode: RoutingModeSchema,
  chosen_model: z.string().min(1),
  reason: z.string(),
  rule_name: z.string().nullable().optional(),
  confidence: z.number().min(0).max(1).nullable().optional(),
  alternatives_considered: z.array(z.string()).default([]),
});
/** A routing decision record. */
export type RoutingDecisionRecord = z.output<typeof RoutingDecisionRecordSchema>;
