/**
 * @yourtool/session: the session manager. One turn from user message to persisted, priced,
 * routed assistant message; the tool loop; cancellation; bus events.
 *
 * @packageDocumentation
 */
export { callScopes, type SessionBudgetOptions } from './budget-admission.js';
export { estimateWorstCaseMicros, type WorstCaseInput } from './budget-estimate.js';
export * from './compaction.js';
export * from './define-tool.js';
export {
  InvalidInputError,
  InvalidManagerOptionError,
  InvalidSendOptionError,
  TurnInProgressError,
  UnknownSessionError,
} from './errors.js';
export * from './events.js';
export { FALLBACK_ERROR_CLASSES } from './fallback.js';
export { type HistoryRecoveryOutcome, HistoryTooLongError } from './history-too-long.js';
export * from './input.js';
export { SessionManager } from './manager.js';
export type {
  ConfirmationRequest,
  ConfirmHook,
  HistoryRecovery,
  KeptHistories,
  OutputRepairPolicy,
  SendOptions,
  SessionManagerOptions,
  SystemPromptContext,
  SystemPromptPart,
  ToolResultLimits,
} from './options.js';
export {
  type InvalidReplyDetails,
  InvalidReplyError,
  isInvalidReplyError,
  type ReplyViolation,
} from './reply-check.js';
export type { SessionTelemetryOptions, ToolOutcome } from './telemetry-options.js';
export * from './tools.js';
export {
  DEFAULT_TURN_LEASE_HEARTBEAT_MS,
  DEFAULT_TURN_LEASE_TTL_MS,
  type TurnLeaseOptions,
  type WaitForTurnOptions,
} from './turn-lease-options.js';
export { MAX_OUTPUT_ATTEMPTS, type StructuredOutputRecord } from './turn-output.js';
export { managerOptionProblem, type OptionProblem } from './validate-options.js';
