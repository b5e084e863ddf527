import type { CallRunnerOptions } from '@yourtool/core';
import type { WireCall } from '@yourtool/core/adapter';
import type OpenAI from 'openai';
import type { OpenAIChatWireMemory } from '../codec/chat-wire-memory.js';
import type { ToOpenAIAdapterErrorOptions } from '../codec/errors.js';
import type { OpenAIChatEncoding } from '../codec/request.js';
import type { OpenAIResponseDecoding } from '../codec/response.js';
import type { OpenAIStreamMapperOptions } from '../codec/stream.js';
import type { OpenAIClientOptions, OpenAIClientSettings } from '../sdk-client.js';

/** Construction options of a Chat Completions adapter besides the config (core's, unchanged). */
export type ChatCompletionsRuntimeOptions = CallRunnerOptions;

/** What the SDK client is built from (see {@link ChatCompletionsRules.createClient}). */
export type ChatCompletionsClientOptions = OpenAIClientOptions;

/** One encoded request: the wire parameters plus body fields the SDK types do not know. */
export interface ChatCompletionsEncoding extends OpenAIChatEncoding {
  /** Provider fields merged into the body (OpenRouter's `reasoning`, `provider`, ...). */
  extraBody?: Record<string, unknown>;
  /**
   * Whether a stream asks for usage with `stream_options.include_usage` (default true). Servers
   * that refuse the field (or send usage unasked) set it to false.
   */
  includeUsage?: boolean;
}

/**
 * What distinguishes one Chat Completions provider from another: data and a few functions, handed
 * to `chatCompletionsParts` (OpenAI, OpenRouter and every OpenAI-compatible server share the
 * codec and transport they configure).
 */
export interface ChatCompletionsRules {
  /** How the SDK client is set up: provider key, key and base URL variables, headers. */
  client: OpenAIClientSettings;
  /** Encodes one request (history, parameters, provider fields). */
  encode(call: WireCall): ChatCompletionsEncoding;
  /**
   * Decodes a non-streaming reply (default: `fromOpenAIChatCompletion`); tool names are read
   * back as canonical after this.
   */
  decode?(
    completion: OpenAI.ChatCompletion,
    encoding: ChatCompletionsEncoding,
    call: WireCall,
  ): OpenAIResponseDecoding;
  /** Stream mapper options beyond the common ones (OpenRouter adds its reasoning). */
  streamOptions?(
    encoding: ChatCompletionsEncoding,
    call: WireCall,
  ): Partial<OpenAIStreamMapperOptions>;
  /** Error mapping options beyond provider and key (OpenRouter brings its classifier). */
  errorOptions?: Partial<ToOpenAIAdapterErrorOptions>;
  /**
   * Builds the SDK client from the options worked out (key, base URL, headers, no SDK retries,
   * timeout, logger, fetch); default `new OpenAI(options)`. Azure builds its `AzureOpenAI`.
   */
  createClient?(options: ChatCompletionsClientOptions): OpenAI;
  /**
   * The adapter's wire memory, which `encode` hands to `toOpenAIChatParams` (decisions 0165,
   * 0191). With it, the transport writes the body itself (the remembered messages' JSON copied,
   * not serialized again) and sends it as it is through the SDK client's `post`; ignored with
   * `createClient` (a client such as Azure's reads the body as an object).
   */
  memory?: OpenAIChatWireMemory;
}
