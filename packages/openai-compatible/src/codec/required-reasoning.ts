import type { Logger } from '@yourtool/core';
import type { OpenAIChatMessage } from '@yourtool/openai/codec';

/**
 * Gives every assistant message with tool calls the reasoning field a thinking model requires
 * (DeepSeek's thinking mode answers 400 "The `reasoning_content` in the thinking mode must be
 * passed back to the API" without it): a message that already carries its own reasoning keeps
 * it; any other gets `""` (another model's turn, or one whose reasoning was empty or not kept),
 * each with a `reasoning_filled` WARN naming its index in the body's `messages`.
 */
export function fillRequiredReasoning(
  messages: OpenAIChatMessage[],
  field: 'reasoning' | 'reasoning_content',
  context: { adapter: string; request_id: string; logger: Logger },
): OpenAIChatMessage[] {
  return messages.map((message, index) => {
    if (message.role !== 'assistant' || (message.tool_calls ?? []).length === 0) return message;
    const current = (message as unknown as Record<string, unknown>)[field];
    if (typeof current === 'string') return message;
    context.logger.warn(
      {
        event: 'reasoning_filled',
        adapter: context.adapter,
        request_id: context.request_id,
        field,
        message_index: index,
      },
      `an assistant message with tool calls has no reasoning of this model to send back (another model's turn, or its reasoning was empty); ${field} is sent as "" because the server requires the field`,
    );
    return { ...message, [field]: '' } as OpenAIChatMessage;
  });
}
