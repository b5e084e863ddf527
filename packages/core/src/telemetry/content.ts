/**
 * Message content in the shapes of the GenAI semantic conventions (`gen_ai.input.messages`,
 * `gen_ai.output.messages`, `gen_ai.system_instructions`, `gen_ai.tool.definitions`), recorded
 * only when content capture is opted in. Values are JSON strings: span attributes of the
 * JavaScript API take no structured values.
 */
import type { StopReason } from '../schemas/adapter.js';
import type { ContentBlock, ToolResultContentBlock } from '../schemas/content.js';
import type { Message } from '../schemas/message.js';
import type { ToolDefinition } from '../schemas/tool.js';

/** One part of a message, as the conventions' JSON schemas have it. */
type Part = Record<string, unknown> & { type: string };

/**
 * An image's part: a URL as a `uri` part; inline bytes are not copied into telemetry (they
 * would exceed attribute and export limits) but named by a part of their own with their size.
 */
function imagePart(block: { media_type: string; source: { kind: string; data: string } }): Part {
  const { kind, data } = block.source;
  if (kind === 'url')
    return { type: 'uri', modality: 'image', mime_type: block.media_type, uri: data };
  if (kind === 'file_ref') {
    return { type: 'image', mime_type: block.media_type, source: 'file_ref', file: data };
  }
  return {
    type: 'image',
    mime_type: block.media_type,
    source: 'base64',
    base64_chars: data.length,
  };
}

function toolResultResponse(content: readonly ToolResultContentBlock[]): unknown {
  if (content.every((b) => b.type === 'text')) return content.map((b) => b.text).join('');
  return content.map((b) => (b.type === 'text' ? { type: 'text', content: b.text } : imagePart(b)));
}

function partOf(block: ContentBlock): Part {
  switch (block.type) {
    case 'text':
      return { type: 'text', content: block.text };
    case 'thinking':
      return { type: 'reasoning', content: block.text };
    case 'redacted_thinking':
      // encrypted and provider-bound: only its presence is telling
      return { type: 'redacted_reasoning' };
    case 'tool_use':
      return { type: 'tool_call', id: block.id, name: block.name, arguments: block.input };
    case 'tool_result':
      return {
        type: 'tool_call_response',
        id: block.tool_use_id,
        response: toolResultResponse(block.content),
        ...(block.is_error ? { is_error: true } : {}),
      };
    case 'image':
      return imagePart(block);
    default:
      return { type: (block as { type: string }).type };
  }
}

/** `gen_ai.input.messages`: the request's messages, in order. */
export function inputMessagesJson(messages: readonly Message[]): string {
  return JSON.stringify(messages.map((m) => ({ role: m.role, parts: m.content.map(partOf) })));
}

/** `gen_ai.output.messages`: the reply, one assistant message with its finish reason. */
export function outputMessagesJson(content: readonly ContentBlock[], stop: StopReason): string {
  return JSON.stringify([{ role: 'assistant', parts: content.map(partOf), finish_reason: stop }]);
}

/** `gen_ai.system_instructions`: the system prompt as one text part. */
export function systemInstructionsJson(systemPrompt: string): string {
  return JSON.stringify([{ type: 'text', content: systemPrompt }]);
}

/** `gen_ai.tool.definitions`: the tools offered, as functions. */
export function toolDefinitionsJson(tools: readonly ToolDefinition[]): string {
  return JSON.stringify(
    tools.map((t) => ({
      type: 'function',
      name: t.name,
      description: t.description,
      parameters: t.input_schema,
    })),
  );
}

/**
 * A tool's result as recorded on `execute_tool` spans (opt-in): its text, or the JSON of its
 * parts when it holds an image.
 */
export function toolResultJson(content: readonly ToolResultContentBlock[]): string {
  const response = toolResultResponse(content);
  return typeof response === 'string' ? response : JSON.stringify(response);
}

/** A tool's input as recorded on `execute_tool` spans (opt-in). */
export function toolCallValueJson(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
