import type { Logger } from '@yourtool/core';
import type { OpenAIChatMessage } from '@yourtool/openai/codec';
import type { RequestOrderRule } from '../options.js';

/**
 * Text of the assistant message put between a tool message and a user message for a server
 * that refuses `tool, user` (rule `no_user_after_tool`). It says only what happened: the tool
 * results came and the conversation goes on; it claims nothing about their content.
 */
export const REQUEST_ORDER_BRIDGE_TEXT = '(tool results received)';

/**
 * Text of the user message put before a history's first message when that message is not a
 * user message (rule `user_first`): the same words the Anthropic and Gemini adapters use for
 * their leading user turn (decisions 0035, 0111). It claims nothing the user did not say.
 */
export const REQUEST_ORDER_OPENING_TEXT = '(The conversation continues.)';

/** The request order rules the encoder knows. */
export const REQUEST_ORDER_RULES: readonly RequestOrderRule[] = [
  'user_first',
  'no_user_after_tool',
  'prefix_last_assistant',
];

/** Where a repair is logged, besides the rule and message index. */
export interface RequestOrderContext {
  adapter: string;
  request_id: string;
  logger: Logger;
}

const repaired = (
  context: RequestOrderContext,
  rule: RequestOrderRule,
  messageIndex: number,
  detail: string,
): void => {
  context.logger.warn(
    {
      event: 'request_order_repaired',
      adapter: context.adapter,
      request_id: context.request_id,
      rule,
      message_index: messageIndex,
    },
    detail,
  );
};

/**
 * Makes wire messages satisfy a server's order rules (Mistral's validator, mistral-common):
 *
 * - `user_first`: a request whose first message after the system message is not a user message
 *   (a session seeded with a greeting, or one whose first user message was dropped: blank, or
 *   an image the model cannot take) gets a user message saying
 *   {@link REQUEST_ORDER_OPENING_TEXT} put before it. After core's `prepareHistory` that first
 *   message can only be an assistant message (tool results follow their call);
 * - `no_user_after_tool`: a user message (the caller's, or the codec's own "Image output of
 *   tool call" message) directly after a tool message gets an assistant message saying
 *   {@link REQUEST_ORDER_BRIDGE_TEXT} put before it;
 * - `prefix_last_assistant`: a request whose last message is an assistant message sends it with
 *   `prefix: true`, the only way such a server takes it (the reply then continues that text).
 *
 * Each repair is a `request_order_repaired` WARN naming the rule and the index, in the body's
 * `messages` (system message included), of the message inserted or changed.
 */
export function applyRequestOrderRules(
  messages: readonly OpenAIChatMessage[],
  rules: readonly RequestOrderRule[],
  context: RequestOrderContext,
): OpenAIChatMessage[] {
  if (rules.length === 0) return [...messages];
  const out: OpenAIChatMessage[] = [];
  const opening = rules.includes('user_first')
    ? messages.findIndex((m) => m.role !== 'system')
    : -1;
  for (const [index, message] of messages.entries()) {
    if (index === opening && message.role !== 'user') {
      out.push({ role: 'user', content: REQUEST_ORDER_OPENING_TEXT });
      repaired(
        context,
        'user_first',
        out.length - 1,
        `a conversation whose first message has role ${message.role} is refused by ${context.adapter} (it must start with a user message); a user message "${REQUEST_ORDER_OPENING_TEXT}" was put before it`,
      );
    }
    if (
      rules.includes('no_user_after_tool') &&
      message.role === 'user' &&
      out.at(-1)?.role === 'tool'
    ) {
      out.push({ role: 'assistant', content: REQUEST_ORDER_BRIDGE_TEXT });
      repaired(
        context,
        'no_user_after_tool',
        out.length - 1,
        `a user message directly after a tool message is refused by ${context.adapter}; an assistant message "${REQUEST_ORDER_BRIDGE_TEXT}" was put between them`,
      );
    }
    out.push(message);
  }
  const last = out.at(-1);
  if (rules.includes('prefix_last_assistant') && last?.role === 'assistant') {
    out[out.length - 1] = { ...last, prefix: true } as OpenAIChatMessage;
    repaired(
      context,
      'prefix_last_assistant',
      out.length - 1,
      `a request ending in an assistant message is refused by ${context.adapter} unless it is marked prefix: true; it was marked, so the reply continues it`,
    );
  }
  return out;
}
