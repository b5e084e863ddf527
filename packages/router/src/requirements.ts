import type { AdapterCapabilities, Message, ToolDefinition } from '@yourtool/core';
import { SealedPrefixMemo } from '@yourtool/core/adapter';

/** What a turn needs from a model, derived from the whole history and the request. */
export interface TurnNeeds {
  /** Media types of every image in the history (user messages and tool results). */
  imageMediaTypes: string[];
  /** The turn offers tools, or the history holds tool calls or results. */
  tools: boolean;
  thinking: boolean;
  structuredOutput: boolean;
  systemPrompt: boolean;
  maxOutputTokens: number;
}

/** The request facts a capability check needs. */
export interface NeedsInput {
  messages: readonly Message[];
  tools?: readonly ToolDefinition[];
  system_prompt?: string | null;
  output_schema?: Record<string, unknown> | null;
  max_output_tokens: number;
  thinking?: boolean;
}

/** What a history's messages need: their images, whether they use tools, system messages. */
interface HistoryNeeds {
  imageMediaTypes: string[];
  toolBlocks: boolean;
  systemMessages: boolean;
}

/** The needs of a history's sealed messages, read once per history (core decision 0148). */
const sealedNeeds = new SealedPrefixMemo<HistoryNeeds>(() => ({
  imageMediaTypes: [],
  toolBlocks: false,
  systemMessages: false,
}));

function addNeeds(needs: HistoryNeeds, message: Message): void {
  if (message.role === 'system') needs.systemMessages = true;
  for (const block of message.content) {
    if (block.type === 'image') needs.imageMediaTypes.push(block.media_type);
    else if (block.type === 'tool_use') needs.toolBlocks = true;
    else if (block.type === 'tool_result') {
      needs.toolBlocks = true;
      for (const inner of block.content)
        if (inner.type === 'image') needs.imageMediaTypes.push(inner.media_type);
    }
  }
}

/** Reads what a turn needs from its history and request. */
export function turnNeeds(input: NeedsInput): TurnNeeds {
  const { messages } = input;
  const prefix = sealedNeeds.run(messages, addNeeds);
  const history: HistoryNeeds = {
    ...prefix.state,
    imageMediaTypes: [...prefix.state.imageMediaTypes],
  };
  for (let i = prefix.end; i < messages.length; i++) addNeeds(history, messages[i] as Message);
  return {
    imageMediaTypes: history.imageMediaTypes,
    tools: history.toolBlocks || (input.tools?.length ?? 0) > 0,
    thinking: input.thinking === true,
    structuredOutput: Boolean(input.output_schema),
    systemPrompt: history.systemMessages || Boolean(input.system_prompt),
    maxOutputTokens: input.max_output_tokens,
  };
}

/**
 * Every reason a model with these capabilities cannot take the turn, phrased for people
 * (`session contains images that this model can't process`). Empty when it can.
 * `estimatedInputTokens` is the model's adapter's estimate for this very history.
 */
export function capabilityProblems(
  caps: AdapterCapabilities,
  needs: TurnNeeds,
  estimatedInputTokens: number,
): string[] {
  const problems: string[] = [];
  if (needs.imageMediaTypes.length > 0) {
    if (!caps.supports_images) {
      problems.push("session contains images that this model can't process");
    } else if (caps.accepted_image_media_types.length > 0) {
      const refused = [
        ...new Set(
          needs.imageMediaTypes.filter((t) => !caps.accepted_image_media_types.includes(t)),
        ),
      ];
      if (refused.length > 0)
        problems.push(
          `session contains ${refused.join(', ')} images that this model can't process`,
        );
    }
  }
  if (needs.tools && !caps.supports_tools)
    problems.push('session uses tools and this model has no tool support');
  if (needs.thinking && !caps.supports_thinking)
    problems.push('the turn asks for thinking, which this model does not support');
  // core's forced-tool fallback (planStructuredOutput) gives objects on any tool-capable model
  if (needs.structuredOutput && !caps.supports_structured_output && !caps.supports_tools) {
    problems.push(
      'the turn asks for structured output, and this model has neither structured output nor tools for the forced-tool fallback',
    );
  }
  if (needs.systemPrompt && !caps.supports_system_prompt) {
    problems.push('the turn has a system prompt and this model takes none');
  }
  if (needs.maxOutputTokens > caps.max_output_tokens) {
    problems.push(
      `the turn asks for up to ${needs.maxOutputTokens} output tokens and this model writes at most ${caps.max_output_tokens}`,
    );
  }
  if (estimatedInputTokens + needs.maxOutputTokens > caps.max_context_tokens) {
    problems.push(
      `session needs about ${estimatedInputTokens} input + ${needs.maxOutputTokens} output tokens and this model's context window is ${caps.max_context_tokens}`,
    );
  }
  return problems;
}
