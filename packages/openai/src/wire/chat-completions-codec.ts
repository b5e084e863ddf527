import type { ChunkMapper, DecodedReply, WireCall, WireCodec } from '@yourtool/core/adapter';
import type OpenAI from 'openai';
import { fromOpenAIChatCompletion, servedModelId } from '../codec/response.js';
import {
  createOpenAIStreamMapper,
  isOpenAIStreamEnd,
  type OpenAIStreamItem,
} from '../codec/stream.js';
import { createToolNameDecoder, withCanonicalToolNames } from '../codec/tool-names.js';
import { estimatedCounts } from '../sdk-client.js';
import type { ChatCompletionsEncoding, ChatCompletionsRules } from './chat-completions-rules.js';

/**
 * The codec part every Chat Completions adapter shares: the provider's rules encode, replies
 * decode with tool names read back as canonical and `served_model` from the reply's `model`,
 * and the stream mapper (tool calls end at the finish: their argument fragments may interleave).
 */
export class ChatCompletionsCodec
  implements WireCodec<ChatCompletionsEncoding, OpenAI.ChatCompletion, OpenAIStreamItem>
{
  /**
   * An empty 200 stream is an error before the first event (the end marker starts no message);
   * fragments of parallel tool calls may interleave (keyed by index), so calls end at the finish.
   */
  readonly streamTraits = {
    startsMessage: (chunk: OpenAIStreamItem) => !isOpenAIStreamEnd(chunk),
    toolCallsEndAtFinish: true,
  };
  readonly #rules: ChatCompletionsRules;

  constructor(rules: ChatCompletionsRules) {
    this.#rules = rules;
  }

  /** The provider's encoding of one request. */
  encode(call: WireCall): ChatCompletionsEncoding {
    return this.#rules.encode(call);
  }

  /**
   * The provider's decoding (default `fromOpenAIChatCompletion`), then what holds for every
   * reply: a tool called under a name the encoder derived is the canonical tool (decision
   * 0140), and the served model is what the reply names.
   */
  decode(
    completion: OpenAI.ChatCompletion,
    encoding: ChatCompletionsEncoding,
    call: WireCall,
  ): DecodedReply {
    const decoded = this.#rules.decode
      ? this.#rules.decode(completion, encoding, call)
      : fromOpenAIChatCompletion(completion, call.toolIdMap, {
          provider: this.#rules.client.name,
          modelProvider: call.modelProvider,
          logger: call.logger,
          stopSequencesSent: encoding.stopSequencesSent,
          emulatedStopSequences: encoding.emulatedStopSequences,
        });
    return {
      ...decoded,
      content: withCanonicalToolNames(decoded.content, createToolNameDecoder(call.request)),
      served_model: decoded.served_model ?? servedModelId(call.modelProvider, completion.model),
    };
  }

  /** The Chat Completions stream mapper, with the provider's stream options. */
  chunkMapper(encoding: ChatCompletionsEncoding, call: WireCall): ChunkMapper<OpenAIStreamItem> {
    const { request } = call;
    return createOpenAIStreamMapper({
      provider: this.#rules.client.name,
      modelProvider: call.modelProvider,
      toolIdMap: call.toolIdMap,
      logger: call.logger,
      stopSequencesSent: encoding.stopSequencesSent,
      emulatedStopSequences: encoding.emulatedStopSequences,
      estimateUsage: (content) => estimatedCounts(request, content),
      toolName: createToolNameDecoder(request),
      ...this.#rules.streamOptions?.(encoding, call),
    });
  }
}
