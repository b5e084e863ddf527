/**
 * @yourtool/session: the session manager. One turn from user message to persisted, priced,
 * routed assistant message; the tool loop; cancellation; bus events.
 *
 * @packageDocumentation
 */
export * from './compaction.js';
export * from './define-tool.js';
export * from './events.js';
export * from './input.js';
export * from './manager.js';
export { type InvalidReplyDetails, InvalidReplyError, isInvalidReplyError } from './reply-check.js';
export * from './tools.js';
