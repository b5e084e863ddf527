import type { CanonicalRequest, Logger, TokenUsage } from '@yourtool/core';
import { OLLAMA } from './codec/request.js';

/**
 * A `context_may_overflow` WARN when the prompt is estimated above the `num_ctx` the call sends:
 * Ollama refuses such a prompt, or on older servers silently truncates it.
 */
export function warnIfPromptTooLong(
  request: CanonicalRequest,
  check: { estimate: number; numCtx: number; wireName: string },
  logger: Logger,
): void {
  const { estimate, numCtx, wireName } = check;
  if (estimate <= numCtx) return;
  logger.warn(
    {
      event: 'context_may_overflow',
      adapter: OLLAMA,
      request_id: request.request_id,
      estimated_input_tokens: estimate,
      num_ctx: numCtx,
    },
    `the prompt is estimated at ${estimate} tokens, more than the ${numCtx}-token context (num_ctx) of ${wireName}; Ollama refuses it, or on older servers silently truncates it`,
  );
}

/**
 * A WARN about a reply's usage: `usage_estimated` when Ollama sent no input count, else
 * `context_truncated` when the prompt filled the whole `num_ctx` (Ollama probably cut it).
 */
export function checkOllamaUsage(
  usage: TokenUsage,
  numCtx: number,
  request: CanonicalRequest,
  logger: Logger,
): void {
  const fields = { adapter: OLLAMA, request_id: request.request_id, model: request.model };
  if (usage.estimated) {
    logger.warn(
      { event: 'usage_estimated', ...fields, input_tokens: usage.input_tokens },
      'Ollama sent no prompt_eval_count (older servers omit it when the prompt came from the KV cache); input_tokens is estimated',
    );
  } else if (usage.input_tokens >= numCtx) {
    logger.warn(
      { event: 'context_truncated', ...fields, input_tokens: usage.input_tokens, num_ctx: numCtx },
      `the prompt filled the whole ${numCtx}-token context: Ollama probably truncated it (raise num_ctx, or shorten the history)`,
    );
  }
}
