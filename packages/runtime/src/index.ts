/**
 * @yourtool/runtime: one call from two YAML documents to a working session stack.
 *
 * @packageDocumentation
 */

// What `createRuntime`'s options take and what its sessions throw, from the packages the
// runtime depends on: an application imports from `@yourtool/runtime` alone, and installs
// exactly the packages its README names (npm hoisting `@yourtool/session` is not a contract).
export { OutputSchemaError, OutputValidationError } from '@yourtool/core';
export { NoRouteError, RouterConfigError } from '@yourtool/router';
export {
  type CompactionHook,
  type ConfirmationRequest,
  type ConfirmHook,
  defineTool,
  dropOldestTurns,
  type HistoryRecovery,
  HistoryTooLongError,
  type OutputRepairPolicy,
  type ParsedUserInput,
  parseUserInput,
  type SendOptions,
  type SessionEvent,
  type SessionManager,
  type SystemPromptContext,
  type SystemPromptPart,
  summarizeOlderTurns,
  type ToolCallContext,
  type ToolHandler,
  ToolInputError,
  ToolRegistry,
  type ToolResultLimits,
  TurnInProgressError,
  type TurnResult,
  type TypedToolHandler,
  UnknownSessionError,
} from '@yourtool/session';
export { KNOWN_ADAPTER_PACKAGES } from './adapter-packages.js';
export type { RuntimeBudgetOptions } from './budgets.js';
export * from './config.js';
export type { RuntimeMcpServers } from './mcp-servers.js';
export { InvalidRuntimeOptionError } from './options.js';
export * from './runtime.js';
export type {
  ConfigSource,
  RuntimeOptions,
  SharedAvailabilitySetting,
} from './runtime-options.js';
export * from './stderr-logger.js';
