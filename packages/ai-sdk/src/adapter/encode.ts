import type {
  LanguageModelV4CallOptions,
  LanguageModelV4Message,
  LanguageModelV4ToolResultOutput,
  SharedV4ProviderMetadata,
} from '@ai-sdk/provider';
import type { ContentBlock, Message, ToolResultBlock } from '@yourtool/core';
import { prepareHistory, type WireCall } from '@yourtool/core/adapter';
import { roundTripOf, storedIndex } from './round-trip.js';
import { callToolNamer, type WireRules } from './wire-rules.js';

type AssistantPart = Extract<LanguageModelV4Message, { role: 'assistant' }>['content'][number];
type UserPart = Extract<LanguageModelV4Message, { role: 'user' }>['content'][number];

/** The specification the called model implements: file data and tool result images differ. */
export type SpecVersion = 'v2' | 'v3' | 'v4';

type ImageBlock = Extract<ContentBlock, { type: 'image' }>;

function fileData(block: ImageBlock, spec: SpecVersion): unknown {
  const url = block.source.kind === 'url';
  // v4 tags file data; v2 and v3 take a URL object or base64 text as it is.
  if (spec === 'v4')
    return url
      ? { type: 'url', url: new URL(block.source.data) }
      : { type: 'data', data: block.source.data };
  return url ? new URL(block.source.data) : block.source.data;
}

function filePart(block: ImageBlock, spec: SpecVersion): UserPart {
  return { type: 'file', data: fileData(block, spec), mediaType: block.media_type } as UserPart;
}

function resultImage(block: ImageBlock, spec: SpecVersion) {
  if (spec === 'v4')
    return { type: 'file', data: fileData(block, spec), mediaType: block.media_type };
  if (block.source.kind === 'url') return { type: 'text', text: block.source.data };
  return {
    type: spec === 'v3' ? 'file-data' : 'media',
    data: block.source.data,
    mediaType: block.media_type,
  };
}

function resultOutput(block: ToolResultBlock, spec: SpecVersion): LanguageModelV4ToolResultOutput {
  const onlyText = block.content.every((part) => part.type === 'text');
  const text = block.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n\n');
  if (onlyText)
    return block.is_error ? { type: 'error-text', value: text } : { type: 'text', value: text };
  return {
    type: 'content',
    value: block.content.map((part) =>
      part.type === 'text' ? { type: 'text', text: part.text } : resultImage(part, spec),
    ),
  } as LanguageModelV4ToolResultOutput;
}

function options(metadata: SharedV4ProviderMetadata | undefined) {
  return metadata ? { providerOptions: metadata } : {};
}

/** Who the prompt is for: the model's identity, specification and wire rules. */
export interface PromptModel {
  provider: string;
  modelId: string;
  specificationVersion: SpecVersion;
  rules: WireRules;
}

/** Without stored metadata, a signature or redacted data goes under the provider's own key. */
function rebuilt(block: ContentBlock, provider: string): SharedV4ProviderMetadata | undefined {
  const key = provider.split('.')[0] ?? provider;
  if (block.type === 'thinking' && block.signature)
    return { [key]: { signature: block.signature } };
  if (block.type === 'redacted_thinking') return { [key]: { redactedData: block.data } };
  return undefined;
}

interface PartsContext {
  call: WireCall;
  model: PromptModel;
  name: (name: string) => string;
}

function assistantParts(
  message: Message,
  stored: Message | undefined,
  context: PartsContext,
): AssistantPart[] {
  const { call, model } = context;
  const trip = stored ? roundTripOf(stored, model.provider, model.modelId) : null;
  const parts: AssistantPart[] = [];
  message.content.forEach((block, index) => {
    const metadata =
      trip?.blocks[String(storedIndex(stored, block, index))] ?? rebuilt(block, model.provider);
    if (block.type === 'text') parts.push({ type: 'text', text: block.text, ...options(metadata) });
    else if (block.type === 'thinking')
      parts.push({ type: 'reasoning', text: block.text, ...options(metadata) });
    else if (block.type === 'redacted_thinking')
      parts.push({ type: 'reasoning', text: '', ...options(metadata) });
    else if (block.type === 'tool_use') {
      parts.push({
        type: 'tool-call',
        toolCallId: call.toolIdMap.toProviderId(call.modelProvider, block.id, model.rules.toolIds),
        toolName: context.name(block.name),
        input: block.input,
        ...options(metadata),
      });
    }
  });
  return parts;
}

function toolNameOf(messages: readonly Message[], id: string): string {
  for (const message of messages) {
    for (const block of message.content)
      if (block.type === 'tool_use' && block.id === id) return block.name;
  }
  return '';
}

/**
 * The canonical history → an AI SDK prompt, after core's history pass: reasoning and other
 * parts carry back, as `providerOptions`, the provider metadata stored when this same model
 * produced them; tool ids go back as the provider's own.
 */
export function encodePrompt(
  call: WireCall,
  model: PromptModel,
): LanguageModelV4CallOptions['prompt'] {
  const spec = model.specificationVersion;
  const name = callToolNamer(call, model.rules);
  const request = call.request;
  const prepared = prepareHistory(
    request.messages,
    { adapter: call.modelProvider, model: request.model, capabilities: call.capabilities },
    { system_prompt: request.system_prompt ?? null, logger: call.logger },
    call.historyMemo,
  );
  const byId = new Map(request.messages.map((message) => [message.id, message]));
  const prompt: LanguageModelV4Message[] = [];
  if (prepared.system) prompt.push({ role: 'system', content: prepared.system });
  for (const message of prepared.messages) {
    const stored = byId.get(message.id);
    if (message.role === 'assistant') {
      prompt.push({
        role: 'assistant',
        content: assistantParts(message, stored, { call, model, name }),
      });
    } else if (message.role === 'tool') {
      const content = message.content.flatMap((block) =>
        block.type === 'tool_result'
          ? [
              {
                type: 'tool-result' as const,
                toolCallId: call.toolIdMap.toProviderId(
                  call.modelProvider,
                  block.tool_use_id,
                  model.rules.toolIds,
                ),
                toolName: name(toolNameOf(prepared.messages, block.tool_use_id)),
                output: resultOutput(block, spec),
              },
            ]
          : [],
      );
      prompt.push({ role: 'tool', content });
    } else if (message.role === 'user') {
      const content = message.content.flatMap((block): UserPart[] =>
        block.type === 'text'
          ? [{ type: 'text', text: block.text }]
          : block.type === 'image'
            ? [filePart(block, spec)]
            : [],
      );
      prompt.push({ role: 'user', content });
    }
  }
  return prompt;
}
