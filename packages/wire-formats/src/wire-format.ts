import { anthropicRenderer } from './formats/anthropic.js';
import { bedrockRenderer } from './formats/bedrock.js';
import { geminiRenderer } from './formats/gemini.js';
import { ollamaRenderer } from './formats/ollama.js';
import { openAIChatRenderer } from './formats/openai-chat.js';
import { openAIResponsesRenderer } from './formats/openai-responses.js';
import type { AnyWireRenderer } from './formats/renderer.js';

/**
 * The wire formats rendered here. `openai-chat` is Chat Completions, as spoken by OpenAI,
 * OpenRouter and every Chat-Completions-compatible server; `bedrock` is Amazon Bedrock's
 * Converse and ConverseStream (a binary event stream).
 */
export type WireFormat =
  | 'anthropic'
  | 'openai-chat'
  | 'openai-responses'
  | 'gemini'
  | 'ollama'
  | 'bedrock';

/** Every {@link WireFormat}. */
export const WIRE_FORMATS: readonly WireFormat[] = Object.freeze([
  'anthropic',
  'openai-chat',
  'openai-responses',
  'gemini',
  'ollama',
  'bedrock',
]);

/** The renderer of each wire format: one file per format under `formats/`. */
export const WIRE_RENDERERS: Readonly<Record<WireFormat, AnyWireRenderer>> = Object.freeze({
  anthropic: anthropicRenderer,
  'openai-chat': openAIChatRenderer,
  'openai-responses': openAIResponsesRenderer,
  gemini: geminiRenderer,
  ollama: ollamaRenderer,
  bedrock: bedrockRenderer,
});
