import type { SendContender } from '../contender.js';
import { googleContender } from './google.js';
import { openAIChatContender } from './openai-chat.js';

/** Every provider of `send/<provider>/<N>`, one file each (add a line here for a new one). */
export const SEND_CONTENDERS: readonly SendContender[] = [openAIChatContender, googleContender];
