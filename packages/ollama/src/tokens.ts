import type { Message, ToolDefinition } from '@yourtool/core';
import { estimateRequestTokens } from '@yourtool/core/adapter';

/**
 * How much more than core's heuristic the estimate assumes. Core's heuristic tracks OpenAI's
 * tokenizers within ±5% on English prose; local models use their own (Llama 3 and Qwen are close
 * to them, older 32k-vocabulary models such as Llama 2 and Mistral 7B count up to ~20% more),
 * so the estimate errs high: underestimating lets Ollama silently truncate the prompt.
 */
export const OLLAMA_TOKEN_ESTIMATE_FACTOR = 1.2;

/**
 * Tokens the model's chat template adds around the conversation: a preamble (dates, tool-use
 * instructions), role markers per message, and the JSON framing of each tool definition.
 */
export const OLLAMA_TEMPLATE_TOKENS = { perRequest: 32, perMessage: 8, perTool: 24 } as const;

/**
 * Pre-flight input-token estimate for a request to a local model, without calling Ollama (which
 * has no stable tokenize endpoint): core's heuristic × `factor`, plus chat-template overhead.
 * Images count core's flat 1,600 tokens each, above what Ollama's vision runners use for
 * ordinary images. The estimate is meant to sit at or a little above the real count, so that a
 * router comparing it with `max_context_tokens` keeps prompts Ollama would truncate away.
 */
export function estimateOllamaInputTokens(
  messages: readonly Message[],
  tools: readonly Pick<ToolDefinition, 'name' | 'description' | 'input_schema'>[],
  systemPrompt: string | null | undefined,
  factor: number = OLLAMA_TOKEN_ESTIMATE_FACTOR,
): number {
  const base = estimateRequestTokens(messages, tools, systemPrompt);
  const framing =
    OLLAMA_TEMPLATE_TOKENS.perRequest +
    OLLAMA_TEMPLATE_TOKENS.perMessage * (messages.length + (systemPrompt ? 1 : 0)) +
    OLLAMA_TEMPLATE_TOKENS.perTool * tools.length;
  return Math.ceil(base * factor) + framing;
}
