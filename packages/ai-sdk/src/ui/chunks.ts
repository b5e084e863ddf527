/**
 * The AI SDK UI message stream's chunks this package writes, typed here so the package needs
 * `ai` only as a peer (the shapes are those of `UIMessageChunk` in ai 6 and 7).
 */

/** Which major of the `ai` package reads the stream: they differ in how a failed step is dropped. */
export type UiProtocol = 'ai7' | 'ai6';

/** The metadata this package puts on an assistant UI message (usage and cost, per turn). */
export interface ChatMessageMetadata {
  /** Canonical id of the model that answered last. */
  model?: string;
  /** Tokens of the turn's calls so far. */
  input_tokens?: number;
  output_tokens?: number;
  /** What the turn's calls cost so far (decimal string); null when one was unpriced. */
  turn_cost_usd?: string | null;
  /** What the whole session has cost, this turn included; set when the turn ends. */
  session_cost_usd?: string | null;
  /** Stored id of the user message this reply answers (decision 0178). */
  user_message_id?: string;
}

/** A data part telling an ai 6 client that the parts since the last `step-start` were dropped. */
export interface FallbackData {
  from: string;
  to: string;
  /** The failure's class (rate_limit, server_error, ...), never the provider's text. */
  error_class: string;
}

/** A chunk of the UI message stream. */
export type UiChunk =
  | { type: 'start'; messageId?: string; messageMetadata?: ChatMessageMetadata }
  | { type: 'start-step' }
  | { type: 'finish-step' }
  | { type: 'reset-step' }
  | { type: 'text-start' | 'text-end' | 'reasoning-start' | 'reasoning-end'; id: string }
  | { type: 'text-delta' | 'reasoning-delta'; id: string; delta: string }
  | { type: 'tool-input-start'; toolCallId: string; toolName: string; dynamic: true }
  | { type: 'tool-input-delta'; toolCallId: string; inputTextDelta: string }
  | {
      type: 'tool-input-available';
      toolCallId: string;
      toolName: string;
      input: unknown;
      dynamic: true;
    }
  | { type: 'tool-approval-request'; approvalId: string; toolCallId: string }
  | { type: 'tool-output-available'; toolCallId: string; output: unknown; dynamic: true }
  | { type: 'tool-output-error'; toolCallId: string; errorText: string; dynamic: true }
  | { type: 'tool-output-denied'; toolCallId: string }
  | { type: 'data-yourtool-fallback'; data: FallbackData }
  | { type: 'message-metadata'; messageMetadata: ChatMessageMetadata }
  | { type: 'finish'; finishReason?: UiFinishReason; messageMetadata?: ChatMessageMetadata }
  | { type: 'abort'; reason?: string }
  | { type: 'error'; errorText: string };

/** The AI SDK's finish reasons. */
export type UiFinishReason =
  | 'stop'
  | 'length'
  | 'content-filter'
  | 'tool-calls'
  | 'error'
  | 'other';
