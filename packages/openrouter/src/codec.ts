/**
 * The OpenRouter codec: the `@yourtool/openai` Chat Completions codec plus OpenRouter's
 * reasoning details, usage with cache writes and cost figures, native finish reasons and error
 * bodies, as pure functions usable without HTTP.
 *
 * @packageDocumentation
 */
import type { ContentBlock, ToolIdMap } from '@yourtool/core';
import { roundTripOpenAIContent } from '@yourtool/openai/codec';
import { OPENROUTER } from './codec/reasoning.js';

export * from './codec/index.js';

/** The codec's round trip for the conformance property test (tool ids keyed `openrouter`). */
export function roundTripOpenRouterContent(
  content: ContentBlock[],
  toolIdMap: ToolIdMap,
): ContentBlock[] {
  return roundTripOpenAIContent(content, toolIdMap, OPENROUTER);
}
