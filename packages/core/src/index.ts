/**
 * @yourtool/core: the canonical, provider-neutral conversation format and the contract every
 * provider adapter implements: types and schemas, errors, ids, the tool id map, the adapter
 * interface, stream events and their invariants. The adapter toolkit (AdapterBase, call runners,
 * StreamBuilder, retry, deadlines, redaction, stream readers) is `@yourtool/core/adapter`; the
 * in-memory store is `@yourtool/core/memory-store`.
 *
 * @packageDocumentation
 */

export type {
  AdapterRuntimeOptions,
  CallOptions,
  CallRunnerOptions,
  ProviderAdapter,
} from './adapter.js';
export { assertNever } from './assert-never.js';
export {
  type BudgetEvent,
  type BudgetEventScope,
  type BudgetRefusedEvent,
  type BudgetReservedEvent,
  type BudgetSettledEvent,
  type BudgetSoftLimitCrossedEvent,
  microsToUsd,
} from './budget-events.js';
export {
  type BudgetAdmission,
  type BudgetDefinition,
  BudgetExceededError,
  type BudgetLedger,
  type BudgetReservationRequest,
  type BudgetScope,
  type BudgetSettlement,
  type BudgetState,
  type BudgetWindow,
  budgetWindowStart,
  formatMicros,
  UnpricedModelError,
  usdToMicros,
} from './budgets.js';
export {
  type BusEvent,
  type ContextLimit,
  createEventBus,
  type EventBus,
  type LlmCallCompletedEvent,
  type LlmCallFailedEvent,
  type RouteDecidedEvent,
  type RouteTraceEntry,
  type RoutingConstraintFailureEvent,
  type RoutingConstraintFailureKind,
  type ToolInputInvalidEvent,
  type ToolInputViolation,
} from './bus.js';
export {
  type CompleteObjectOptions,
  type CompleteObjectResult,
  completeObject,
} from './complete-object.js';
export {
  numberToDecimalString,
  sumDecimalStrings,
} from './decimal.js';
export {
  AdapterError,
  AdapterOptionError,
  AuthError,
  CancelledError,
  ContextOverflowError,
  type ErrorClass,
  InvalidRequestError,
  isAdapterError,
  isCancelledError,
  isYourtoolError,
  NetworkError,
  OtherAdapterError,
  RateLimitError,
  ServerError,
  YourtoolError,
} from './errors.js';
export {
  epochMicrosToTimestamp,
  newMessageId,
  newRequestId,
  newSessionId,
  newToolUseId,
  nowEpochMicros,
  nowTimestamp,
  timestampToEpochMicros,
} from './ids.js';
export {
  createMemoryLogger,
  type Logger,
  type MemoryLogger,
  silentLogger,
} from './logger.js';
export { createMessage } from './messages.js';
export {
  InvalidModelIdError,
  parseModelId,
} from './model-id.js';
export { nearestName, unknownNameMessage } from './nearest-name.js';
export {
  type JsonSchemaObject,
  type OutputCheck,
  type OutputIssue,
  type OutputOf,
  OutputSchemaError,
  type OutputSchemaInput,
  type ResolvedOutputSchema,
  resolveOutputSchema,
  type StandardOutputSchema,
  type StandardResult,
} from './output-schema.js';
export {
  type OutputValidationDetails,
  OutputValidationError,
} from './output-validation-error.js';
export {
  formatPath,
  issuesFromZod,
  MessageParseError,
  type ParseIssue,
  parseMessage,
  serializeMessage,
} from './parse.js';
export { PartialJsonError, PartialJsonParser, type PartialJsonProblem } from './partial-json.js';
export type { AttemptEvent } from './retry.js';
export {
  type AdapterCapabilities,
  AdapterCapabilitiesSchema,
  type AdapterConfig,
  type AdapterConfigInput,
  type CanonicalRequest,
  type CanonicalRequestInput,
  type CanonicalResponse,
  CanonicalResponseSchema,
  type StopReason,
  type TokenUsage,
  type ToolChoice,
} from './schemas/adapter.js';
export {
  type ContentBlock,
  type ImageBlock,
  type RedactedThinkingBlock,
  type ThinkingBlock,
  type ToolResultBlock,
  type ToolResultContentBlock,
  type ToolUseBlock,
  textBlock,
  toolResultBlock,
} from './schemas/content.js';
export {
  CURRENT_SCHEMA_VERSION,
  type Message,
  type MessageError,
  type MessageMetadata,
  MessageSchema,
  type MessageStatus,
  type Role,
  type Usage,
  UsageSchema,
} from './schemas/message.js';
export {
  type FallbackAttempt,
  type RoutingDecisionRecord,
  type RoutingPolicy,
  routingModeForPolicy,
} from './schemas/routing.js';
export type {
  MessageCompleteEvent,
  StreamEvent,
} from './schemas/stream.js';
/** The canonical stream event union, for reading events sent across a process boundary. */
export { StreamEventSchema } from './schemas/stream.js';
export type {
  SideEffects,
  ToolDefinition,
  ToolDefinitionInput,
} from './schemas/tool.js';
export { SideEffectsSchema, TOOL_NAME_PATTERN } from './schemas/tool.js';
export {
  freezeToolDefinition,
  isSealedMessage,
  sealMessage,
} from './sealed.js';
export { sessionStatsOf } from './session-stats.js';
export {
  type AppendMessageOptions,
  CorruptRowError,
  type CreateSessionInput,
  type LoadedMessages,
  type MessagePage,
  type SessionPatch,
  type SessionRecord,
  type SessionStats,
  type SessionStore,
  supportsTurnLeases,
  type ToolCallRecord,
  type ToolCallStatus,
  type TurnLease,
  TurnLeaseHeldError,
  TurnLeaseLostError,
  type TurnLeaseState,
  type TurnLeaseStore,
  type TurnLeaseWrite,
} from './session-store.js';
export {
  type SharedAvailabilityProvider,
  type SharedAvailabilityRecord,
  type SharedAvailabilityState,
  type SharedAvailabilityStore,
  type SharedUnavailableInput,
  supportsSharedAvailability,
} from './shared-availability.js';
export {
  assertStreamInvariants,
  checkStreamInvariants,
  StreamInvariantError,
  withStreamInvariants,
} from './stream/invariants.js';
export {
  planStructuredOutput,
  type StructuredOutputPlan,
  withStructuredOutput,
} from './structured-output-plan.js';
export {
  type ParsedOutputText,
  readStructuredOutput,
  type StructuredOutputRead,
} from './structured-output-read.js';
export {
  CONFIRMED_SIDE_EFFECTS,
  type ToolCallContext,
  type ToolHandler,
  type ToolOutput,
} from './tool-handler.js';
export {
  ANTHROPIC_TOOL_ID_RULES,
  conformsToToolIdRules,
  deriveProviderToolId,
  OPENAI_TOOL_ID_RULES,
  ToolIdConflictError,
  ToolIdMap,
  type ToolIdRules,
} from './tool-id-map.js';
export {
  ALLOWED_SCHEMA_FORMATS,
  ALLOWED_SCHEMA_TYPES,
  checkToolInputSchema,
  ToolDefinitionError,
  validateToolDefinition,
  validateToolInput,
} from './tool-schema.js';
export { validateHistory } from './validate-history.js';
export { imageBlockViolations } from './validate-image.js';
export { validateMessage } from './validate-message.js';
export type { MessageViolation } from './validation-rules.js';
export { RunTail, runToolUseName, WireRuns, type WrittenList } from './wire-runs.js';
