import type { ToolIdRules } from '@yourtool/core';

/** The adapter name, which is also the provider key of Ollama models (`ollama:qwen3:8b`). */
export const OLLAMA = 'ollama';

/**
 * Rules for the tool call ids the adapter puts on the wire. Ollama's documented `/api/chat`
 * format has no tool call ids (results are matched by order and `tool_name`); the adapter still
 * sends the canonical id as `id` / `tool_call_id`, which newer servers read and older ones
 * ignore, so it keeps them to a conservative shape.
 */
export const OLLAMA_TOOL_ID_RULES: ToolIdRules = { pattern: /^[a-zA-Z0-9_-]+$/, maxLength: 64 };

/**
 * Put before the text of a tool result marked `is_error`: Ollama's `role: tool` messages have no
 * error flag, so the failure is said in words the model reads.
 */
export const TOOL_ERROR_PREFIX = '[tool error] ';

/** Sent as the content of a tool result that holds no text, so no empty message goes out. */
export const EMPTY_TOOL_RESULT_TEXT = '(the tool returned no output)';

/** How `think` is requested: on/off, or a level for models that take one (gpt-oss). */
export type OllamaThinkOption = boolean | 'low' | 'medium' | 'high';

/** A tool call on the wire (the ollama client's `ToolCall`, plus the fields newer servers add). */
export interface OllamaWireToolCall {
  /** The call's id: sent by the adapter, returned by newer servers, absent on older ones. */
  id?: string;
  type?: 'function';
  function: {
    index?: number;
    name: string;
    arguments: Record<string, unknown>;
  };
}

/** A tool definition on the wire. */
export interface OllamaWireTool {
  type: 'function';
  function: {
    name: string;
    description: string;
    /** The tool's input JSON schema. */
    parameters: Record<string, unknown>;
  };
}

/** A chat message on the wire (the documented `/api/chat` message). */
export interface OllamaWireMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  /** Base64 images (no data: prefix), for vision models. */
  images?: string[];
  /** The model's thinking, sent back only to the model that produced it. */
  thinking?: string;
  tool_calls?: OllamaWireToolCall[];
  /** On `role: tool`: the name of the tool that produced the result. */
  tool_name?: string;
  /** On `role: tool`: the id of the call it answers (read by newer servers). */
  tool_call_id?: string;
}
