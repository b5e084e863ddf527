import type Anthropic from '@anthropic-ai/sdk';
import type { CanonicalRequest, Logger } from '@yourtool/core';
import { isForcedToolChoice, reportToolChoiceDowngrade } from '@yourtool/core/adapter';

/**
 * Sets `params.tool_choice` from the request's (`required` is Anthropic's `any`). Thinking
 * refuses a forced choice (the API answers 400), so with thinking on a forced choice goes as
 * `auto` with a `tool_choice_downgraded` WARN (decision 0175). Nothing is set without tools.
 */
export function applyToolChoice(
  params: Pick<Anthropic.MessageCreateParamsNonStreaming, 'tools' | 'thinking' | 'tool_choice'>,
  request: Pick<CanonicalRequest, 'tool_choice' | 'request_id'>,
  toolName: (name: string) => string,
  context: { logger: Logger; provider: string },
): void {
  const choice = request.tool_choice;
  if (choice === undefined || !params.tools || params.tools.length === 0) return;
  const thinking = params.thinking !== undefined && params.thinking.type !== 'disabled';
  if (thinking && isForcedToolChoice(choice)) {
    reportToolChoiceDowngrade(context.logger, {
      adapter: context.provider,
      request_id: request.request_id,
      choice,
      reason: 'Claude refuses a forced tool choice while thinking is on',
    });
    params.tool_choice = { type: 'auto' };
    return;
  }
  if (choice === 'auto' || choice === 'none') params.tool_choice = { type: choice };
  else if (choice === 'required') params.tool_choice = { type: 'any' };
  else params.tool_choice = { type: 'tool', name: toolName(choice.name) };
}
