import type { SendContender } from '../contender.js';
import { anthropicContender } from './anthropic.js';
import { googleContender } from './google.js';
import { ollamaContender } from './ollama.js';
import { openAIChatContender } from './openai-chat.js';
import { openAIResponsesContender } from './openai-responses.js';

/** Every provider of `send/<provider>/<N>`, one file each (add a line here for a new one). */
export const SEND_CONTENDERS: readonly SendContender[] = [
  anthropicContender,
  openAIChatContender,
  openAIResponsesContender,
  googleContender,
  ollamaContender,
];
