import type {
  LanguageModelV4Prompt,
  LanguageModelV4ToolResultOutput,
  SharedV4ProviderOptions,
} from '@ai-sdk/provider';
import {
  type ContentBlock,
  createMessage,
  InvalidRequestError,
  type Message,
  type ToolResultContentBlock,
} from '@yourtool/core';
import type { ToolNameBridge } from './tool-names.js';

/** The provider-options key this bridge reads and writes (signatures, redacted thinking). */
export const METADATA_KEY = 'yourtool';

/** A prompt in canonical terms: the system text and the messages. */
export interface CanonicalPrompt {
  system_prompt: string | null;
  messages: Message[];
}

/** Who the converted messages belong to, so replayed reasoning reaches the model that made it. */
export interface PromptContext {
  session_id: string;
  /** Canonical id of the model the bridge calls; assistant messages are recorded as its own. */
  model: string;
  request_id: string;
  /** AI SDK tool names ↔ canonical ones (default: names kept as they are). */
  toolNames?: ToolNameBridge;
}

function fail(path: string, message: string, context: PromptContext): never {
  throw new InvalidRequestError(`prompt${path}: ${message}`, {
    provider: 'ai-sdk',
    request_id: context.request_id,
  });
}

function ownOptions(options: SharedV4ProviderOptions | undefined): Record<string, unknown> {
  const own = options?.[METADATA_KEY];
  return own && typeof own === 'object' ? (own as Record<string, unknown>) : {};
}

type FileLike = { data: unknown; mediaType: string };

function imageOf(part: FileLike, path: string, context: PromptContext): ContentBlock {
  if (!part.mediaType.startsWith('image/')) {
    fail(path, `only images are accepted as files, got ${part.mediaType}`, context);
  }
  const data = part.data;
  if (data instanceof URL)
    return { type: 'image', source: { kind: 'url', data: data.href }, media_type: part.mediaType };
  if (data instanceof Uint8Array) {
    return {
      type: 'image',
      source: { kind: 'base64', data: Buffer.from(data).toString('base64') },
      media_type: part.mediaType,
    };
  }
  if (typeof data === 'string') {
    const kind = /^https?:\/\//.test(data) ? 'url' : 'base64';
    return { type: 'image', source: { kind, data }, media_type: part.mediaType };
  }
  if (data && typeof data === 'object' && (data as { type?: string }).type === 'url') {
    const url = (data as { url: URL }).url;
    return {
      type: 'image',
      source: { kind: 'url', data: String(url) },
      media_type: part.mediaType,
    };
  }
  if (data && typeof data === 'object' && (data as { type?: string }).type === 'data') {
    const bytes = (data as { data: Uint8Array | string }).data;
    const base64 = typeof bytes === 'string' ? bytes : Buffer.from(bytes).toString('base64');
    return { type: 'image', source: { kind: 'base64', data: base64 }, media_type: part.mediaType };
  }
  return fail(path, 'an image must be bytes, base64 text or a URL', context);
}

function resultContent(
  output: LanguageModelV4ToolResultOutput,
  path: string,
  context: PromptContext,
): { content: ToolResultContentBlock[]; is_error: boolean } {
  switch (output.type) {
    case 'text':
      return { content: [{ type: 'text', text: output.value }], is_error: false };
    case 'json':
      return { content: [{ type: 'text', text: JSON.stringify(output.value) }], is_error: false };
    case 'error-text':
      return { content: [{ type: 'text', text: output.value }], is_error: true };
    case 'error-json':
      return { content: [{ type: 'text', text: JSON.stringify(output.value) }], is_error: true };
    case 'execution-denied':
      return {
        content: [{ type: 'text', text: output.reason ?? 'The user denied this tool call.' }],
        is_error: true,
      };
    case 'content': {
      const content: ToolResultContentBlock[] = [];
      output.value.forEach((item, index) => {
        const at = `${path}.output.value[${index}]`;
        if (item.type === 'text') content.push({ type: 'text', text: item.text });
        else if ('mediaType' in item && 'data' in item)
          content.push(imageOf(item as FileLike, at, context) as ToolResultContentBlock);
        else fail(at, `tool result part ${item.type} has no canonical form`, context);
      });
      return { content, is_error: false };
    }
    default:
      return fail(
        path,
        `tool result output ${(output as { type: string }).type} has no canonical form`,
        context,
      );
  }
}

function assistantBlocks(
  parts: Extract<LanguageModelV4Prompt[number], { role: 'assistant' }>['content'],
  path: string,
  context: PromptContext,
): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  parts.forEach((part, index) => {
    const at = `${path}.content[${index}]`;
    if (part.type === 'text') blocks.push({ type: 'text', text: part.text });
    else if (part.type === 'reasoning') {
      const own = ownOptions(part.providerOptions);
      if (typeof own.redactedData === 'string')
        blocks.push({ type: 'redacted_thinking', data: own.redactedData });
      else
        blocks.push({
          type: 'thinking',
          text: part.text,
          signature: typeof own.signature === 'string' ? own.signature : null,
        });
    } else if (part.type === 'tool-call') {
      const input = typeof part.input === 'string' ? JSON.parse(part.input || '{}') : part.input;
      if (!input || typeof input !== 'object' || Array.isArray(input))
        fail(at, 'tool call input must be an object', context);
      blocks.push({
        type: 'tool_use',
        id: part.toolCallId,
        name: context.toolNames ? context.toolNames.canonical(part.toolName) : part.toolName,
        input: input as Record<string, unknown>,
      });
    } else if (part.type === 'tool-result') {
      blocks.push({
        type: 'tool_result',
        tool_use_id: part.toolCallId,
        ...resultContent(part.output, at, context),
      });
    } else if (part.type === 'file') blocks.push(imageOf(part, at, context));
    else fail(at, `assistant part ${part.type} has no canonical form`, context);
  });
  return blocks;
}

/**
 * Converts an AI SDK prompt to canonical messages: system messages joined into the system
 * prompt, images as image blocks, reasoning with its signature (or redacted data) from
 * `providerOptions.yourtool`, tool calls and their results. Throws `InvalidRequestError` naming
 * the part that has no canonical form.
 */
export function promptToCanonical(
  prompt: LanguageModelV4Prompt,
  context: PromptContext,
): CanonicalPrompt {
  const system: string[] = [];
  const messages: Message[] = [];
  const add = (role: Message['role'], content: ContentBlock[], model?: string) => {
    if (content.length > 0) {
      messages.push(
        createMessage({
          session_id: context.session_id,
          role,
          content,
          metadata: model ? { model } : {},
        }),
      );
    }
  };
  prompt.forEach((message, index) => {
    const path = `[${index}]`;
    if (message.role === 'system') system.push(message.content);
    else if (message.role === 'user') {
      add(
        'user',
        message.content.map((part, at) =>
          part.type === 'text'
            ? { type: 'text', text: part.text }
            : imageOf(part, `${path}.content[${at}]`, context),
        ),
      );
    } else if (message.role === 'assistant')
      add('assistant', assistantBlocks(message.content, path, context), context.model);
    else {
      // One TOOL message per result, as the canonical history expects.
      message.content.forEach((part, at) => {
        if (part.type !== 'tool-result') return;
        add('tool', [
          {
            type: 'tool_result',
            tool_use_id: part.toolCallId,
            ...resultContent(part.output, `${path}.content[${at}]`, context),
          },
        ]);
      });
    }
  });
  return { system_prompt: system.length > 0 ? system.join('\n\n') : null, messages };
}
