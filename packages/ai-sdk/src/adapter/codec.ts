import type {
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4GenerateResult,
  SharedV4ProviderOptions,
} from '@ai-sdk/provider';
import type { ContentBlock, ToolChoice } from '@yourtool/core';
import type { DecodedReply, WireCall, WireCodec } from '@yourtool/core/adapter';
import { type AnyStreamPart, createPartMapper } from './chunks.js';
import { encodePrompt, type PromptModel } from './encode.js';
import { toAdapterError } from './errors.js';
import { RAW_KEY, type RoundTrip, redactedIn, signatureIn } from './round-trip.js';
import { stopReasonFromAiSdk, usageFromAiSdk } from './spec.js';
import { callToolNamer, canonicalNameOf } from './wire-rules.js';

/** Who the codec speaks for: the model's identity and the call options added to every call. */
export interface CodecModel extends PromptModel {
  providerOptions?: SharedV4ProviderOptions;
}

function toolChoiceOf(
  choice: ToolChoice | undefined,
  name: (name: string) => string,
): LanguageModelV4CallOptions['toolChoice'] {
  if (choice === undefined) return undefined;
  return typeof choice === 'string'
    ? { type: choice }
    : { type: 'tool', toolName: name(choice.name) };
}

/** The canonical request → AI SDK call options (the prompt, tools, tool choice, output schema). */
export function encodeCall(call: WireCall, model: CodecModel): LanguageModelV4CallOptions {
  const request = call.request;
  const schema = request.output_schema;
  const name = callToolNamer(call, model.rules);
  return {
    prompt: encodePrompt(call, model),
    maxOutputTokens: request.max_output_tokens,
    ...(request.temperature == null ? {} : { temperature: request.temperature }),
    ...(request.stop_sequences.length > 0 ? { stopSequences: request.stop_sequences } : {}),
    ...(schema ? { responseFormat: { type: 'json', schema: schema as never } } : {}),
    ...(request.tools.length > 0
      ? {
          tools: request.tools.map((tool) => ({
            type: 'function' as const,
            name: name(tool.name),
            description: tool.description,
            inputSchema: tool.input_schema as never,
          })),
          toolChoice: toolChoiceOf(request.tool_choice, name),
        }
      : {}),
    ...(model.providerOptions ? { providerOptions: model.providerOptions } : {}),
  };
}

function decodeContent(
  content: readonly LanguageModelV4Content[],
  call: WireCall,
  model: CodecModel,
  blocks: RoundTrip['blocks'],
): ContentBlock[] {
  const out: ContentBlock[] = [];
  const canonicalName = canonicalNameOf(call, model.rules);
  for (const part of content) {
    const meta = 'providerMetadata' in part ? part.providerMetadata : undefined;
    const before = out.length;
    if (part.type === 'text' && part.text !== '') out.push({ type: 'text', text: part.text });
    else if (part.type === 'reasoning') {
      const redacted = redactedIn(meta);
      out.push(
        redacted
          ? { type: 'redacted_thinking', data: redacted }
          : { type: 'thinking', text: part.text, signature: signatureIn(meta) ?? null },
      );
    } else if (part.type === 'tool-call') {
      const input = typeof part.input === 'string' ? JSON.parse(part.input || '{}') : part.input;
      const id = call.toolIdMap.toCanonical(call.modelProvider, part.toolCallId);
      out.push({
        type: 'tool_use',
        id,
        name: canonicalName(part.toolName),
        input: input as Record<string, unknown>,
      });
    }
    if (out.length > before && meta) blocks[String(before)] = meta;
  }
  return out;
}

/** The codec of an AI SDK model: call options out, generate results and stream parts back. */
export function aiSdkCodec(
  model: CodecModel,
  secrets: readonly string[],
): WireCodec<LanguageModelV4CallOptions, LanguageModelV4GenerateResult, AnyStreamPart> {
  return {
    encode: (call) => encodeCall(call, model),
    // Every AI SDK tool call ends with its own `tool-call` part, and fragments of two may interleave.
    streamTraits: { toolCallsEndAtFinish: true },
    decode: (reply, _encoded, call): DecodedReply => {
      const blocks: RoundTrip['blocks'] = {};
      const content = decodeContent(reply.content, call, model, blocks);
      const raw: RoundTrip = { provider: model.provider, model: model.modelId, blocks };
      if (reply.providerMetadata) raw.response = reply.providerMetadata;
      return {
        content,
        stop_reason: stopReasonFromAiSdk(reply.finishReason as never),
        usage: usageFromAiSdk(reply.usage),
        provider_raw: { [RAW_KEY]: raw },
        provider_response_id: reply.response?.id ?? null,
        served_model: reply.response?.modelId
          ? `${call.modelProvider}:${reply.response.modelId}`
          : null,
      };
    },
    chunkMapper: (_encoded, call) =>
      createPartMapper({
        toolIdMap: call.toolIdMap,
        providerKey: call.modelProvider,
        provider: model.provider,
        modelId: model.modelId,
        canonicalName: canonicalNameOf(call, model.rules),
        fail: (error) =>
          toAdapterError(error, {
            provider: call.modelProvider,
            request_id: call.request.request_id,
            secrets,
          }),
      }),
  };
}
