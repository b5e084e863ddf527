/**
 * @yourtool/ai-sdk: the Vercel AI SDK and yourtool sessions. `ChatBridge` serves `useChat`:
 * a session turn streamed as the AI SDK UI message stream (ai 6 and 7), tool approvals
 * answered in later requests at any instance, and the stored history for a reload.
 *
 * @packageDocumentation
 */
export {
  type ApprovalRecord,
  type ApprovalStatus,
  type ApprovalStore,
  MemoryApprovalStore,
} from './ui/approval-store.js';
export { ChatBridge, type ChatBridgeOptions, type ChatTurnOptions } from './ui/chat-bridge.js';
export { type ApprovalAnswer, type ChatRequest, readChatRequest } from './ui/chat-request.js';
export type {
  ChatMessageMetadata,
  FallbackData,
  UiChunk,
  UiFinishReason,
  UiProtocol,
} from './ui/chunks.js';
export { ApprovalDeadlineError, ChatRequestError, RegenerateRefusedError } from './ui/errors.js';
export {
  type ChatToolPart,
  type ChatUiMessage,
  type ChatUiPart,
  type DeniedCheck,
  historyToUiMessages,
} from './ui/history.js';
export { readJsonBody, writeResponse } from './ui/node-http.js';
export { replyIdFor, userIdOfReply } from './ui/reply-ids.js';
export { chunksToSse, UI_STREAM_HEADERS, uiStreamResponse } from './ui/sse.js';
export { TurnChunker, type TurnChunkerOptions } from './ui/turn-chunker.js';
