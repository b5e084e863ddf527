import { PNG_1PX_BASE64 } from '@yourtool/testkit';
import {
  type ContentBlock,
  createMessage,
  type Message,
  type MessageMetadata,
  newSessionId,
  type Role,
} from './exports.js';

export const SESSION = newSessionId();

export function msg(
  role: Role,
  content: ContentBlock[],
  metadata: Partial<MessageMetadata> = {},
): Message {
  return createMessage({ session_id: SESSION, role, content, metadata });
}

export const completeAssistantMeta = (
  model = 'anthropic:claude-sonnet-4-6',
): Partial<MessageMetadata> => ({
  model,
  provider: model.slice(0, model.indexOf(':')),
  routing: {
    mode: 'default',
    chosen_model: model,
    reason: 'global default',
    alternatives_considered: [],
  },
  usage: {
    input_tokens: 10,
    output_tokens: 5,
    cached_input_tokens: 0,
    cache_creation_input_tokens: 0,
    cost_usd: '0.000105',
    pricing_version: '2026-05-08',
    latency_ms: 120,
  },
});

export const PNG_1PX = PNG_1PX_BASE64;
