import type { Message as ConverseMessage } from '@aws-sdk/client-bedrock-runtime';
import { type BedrockFamily, bedrockBaseModel } from '../families.js';
import type { BedrockThinkingOption } from '../options.js';

/** Claude's smallest thinking budget. */
const MIN_CLAUDE_BUDGET = 1024;

/** The reasoning request fields of one call, and why reasoning was not asked for if so. */
export interface ThinkingFields {
  /** Members for `additionalModelRequestFields` (empty when reasoning is not switched on). */
  fields: Record<string, unknown>;
  /** Whether reasoning was switched on (Claude then takes no `temperature`). */
  on: boolean;
}

/** What {@link thinkingFields} needs. */
export interface ThinkingInput {
  family: BedrockFamily;
  /** The Bedrock model id (wire name). */
  wireName: string;
  option: BedrockThinkingOption | undefined;
  maxTokens: number;
  messages: readonly ConverseMessage[];
  /** Logs why the option was changed or not sent (`event`, reason). */
  warn: (event: string, reason: string) => void;
}

/**
 * Why Claude cannot think in this request, or null: with thinking on, the assistant turn a
 * tool loop continues from must start with reasoning, which a turn made without it lacks.
 */
function claudeBlockedByHistory(messages: readonly ConverseMessage[]): string | null {
  const last = messages.at(-1);
  if (last?.role !== 'user' || !(last.content ?? []).some((b) => b.toolResult)) return null;
  const turn = messages.at(-2);
  if (turn?.role !== 'assistant' || turn.content?.[0]?.reasoningContent) return null;
  return 'the assistant turn this tool loop continues from has no reasoning (made without thinking or by another model)';
}

/** Claude's `thinking` member: adaptive, or a budget kept below `maxTokens`. */
function claudeThinking(
  option: Exclude<BedrockThinkingOption, 'off'>,
  maxTokens: number,
  warn: ThinkingInput['warn'],
): Record<string, unknown> | null {
  if (option === 'adaptive') return { thinking: { type: 'adaptive' } };
  if ('effort' in option) {
    warn(
      'thinking_skipped',
      'Claude on Bedrock takes "adaptive" or { budget_tokens }, not an effort; thinking is off for this request',
    );
    return null;
  }
  let budget = option.budget_tokens;
  if (budget >= maxTokens) {
    budget = maxTokens - 1;
    warn(
      'thinking_adjusted',
      `the thinking budget must stay below max_output_tokens; lowered to ${budget}`,
    );
  }
  if (budget < MIN_CLAUDE_BUDGET) {
    warn(
      'thinking_skipped',
      `max_output_tokens ${maxTokens} leaves no room for Claude's minimum thinking budget of ${MIN_CLAUDE_BUDGET}; thinking is off for this request`,
    );
    return null;
  }
  return { thinking: { type: 'enabled', budget_tokens: budget } };
}

/** The effort an option asks for (`medium`, with a WARN, for an option that names none). */
function effortOf(
  option: Exclude<BedrockThinkingOption, 'off'>,
  family: string,
  warn: ThinkingInput['warn'],
): 'low' | 'medium' | 'high' {
  if (typeof option === 'object' && 'effort' in option) return option.effort;
  warn('thinking_adjusted', `the ${family} family takes a reasoning effort; asked for medium`);
  return 'medium';
}

/**
 * The `additionalModelRequestFields` members that switch reasoning on for the family: Claude's
 * `thinking`, gpt-oss's `reasoning_effort`, Nova 2's `reasoningConfig`. A family with no
 * switch (or a model of it that does not reason) gets none, with a `thinking_skipped` WARN.
 */
export function thinkingFields(input: ThinkingInput): ThinkingFields {
  const { family, option, warn } = input;
  const off: ThinkingFields = { fields: {}, on: false };
  if (option === undefined || option === 'off') return off;
  const base = bedrockBaseModel(input.wireName) ?? input.wireName;
  const reasons = family.thinkingModels === undefined || family.thinkingModels.test(base);
  switch (reasons ? family.thinking : 'none') {
    case 'claude-thinking': {
      const blocked = claudeBlockedByHistory(input.messages);
      if (blocked !== null) {
        warn('thinking_skipped', `thinking was not enabled for this request: ${blocked}`);
        return off;
      }
      const fields = claudeThinking(option, input.maxTokens, warn);
      return fields === null ? off : { fields, on: true };
    }
    case 'reasoning-effort':
      return { fields: { reasoning_effort: effortOf(option, family.name, warn) }, on: true };
    case 'nova-reasoning-config': {
      const effort = effortOf(option, family.name, warn);
      return {
        fields: { reasoningConfig: { type: 'enabled', maxReasoningEffort: effort } },
        on: true,
      };
    }
    case 'always':
      // the model reasons on every request: there is nothing to switch on
      return { fields: {}, on: true };
    case 'none':
      warn(
        'thinking_skipped',
        `${input.wireName} (${family.name} family) has no reasoning switch on Bedrock; thinking was not requested`,
      );
      return off;
  }
}
