import type { ToolChoice as ConverseToolChoice } from '@aws-sdk/client-bedrock-runtime';
import type { CanonicalRequest, Logger } from '@yourtool/core';
import { isForcedToolChoice, reportToolChoiceDowngrade } from '@yourtool/core/adapter';
import type { BedrockFamily } from '../families.js';
import { BEDROCK } from '../provider.js';
import type { BedrockRequest } from '../wire-types.js';

/** What {@link applyToolChoice} needs besides the request being built. */
export interface ToolChoiceContext {
  family: BedrockFamily;
  /** Whether reasoning is on for this request (Claude refuses a forced choice then). */
  thinkingOn: boolean;
  toolName: (name: string) => string;
  logger: Logger;
}

/** Why a forced tool choice cannot be sent to this family now, or null when it can. */
function forcedRefusal(context: ToolChoiceContext): string | null {
  if (!context.family.forcedToolChoice) {
    return `the ${context.family.name} family takes no forced tool choice on Bedrock`;
  }
  if (context.thinkingOn && context.family.thinking === 'claude-thinking') {
    return 'Claude refuses a forced tool choice while thinking is on';
  }
  return null;
}

/**
 * Sets `toolConfig.toolChoice` from the request's: `auto` {auto}, `required` {any}, a named
 * tool {tool}. Converse has no `none`: such a request offers no tools (see the request
 * encoder). A forced choice the family or thinking refuses goes as auto with a
 * `tool_choice_downgraded` WARN (decision 0175).
 */
export function applyToolChoice(
  out: BedrockRequest,
  request: Pick<CanonicalRequest, 'tool_choice' | 'request_id'>,
  context: ToolChoiceContext,
): void {
  const choice = request.tool_choice;
  const config = out.toolConfig;
  if (choice === undefined || choice === 'none' || config === undefined) return;
  let wire: ConverseToolChoice = { auto: {} };
  if (isForcedToolChoice(choice)) {
    const refused = forcedRefusal(context);
    if (refused) {
      reportToolChoiceDowngrade(context.logger, {
        adapter: BEDROCK,
        request_id: request.request_id,
        choice,
        reason: refused,
      });
    } else {
      wire =
        typeof choice === 'object'
          ? { tool: { name: context.toolName(choice.name) } }
          : { any: {} };
    }
  }
  out.toolConfig = { ...config, toolChoice: wire };
}
