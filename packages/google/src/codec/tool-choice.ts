import { FunctionCallingConfigMode, type ToolConfig } from '@google/genai';
import type { ToolChoice } from '@yourtool/core';

/**
 * Gemini's `toolConfig` for a canonical tool choice: `auto` AUTO, `none` NONE, `required` ANY,
 * a named tool ANY limited to that function. Undefined when the request sets no choice.
 */
export function geminiToolConfig(
  choice: ToolChoice | undefined,
  toolName: (name: string) => string,
): ToolConfig | undefined {
  if (choice === undefined) return undefined;
  if (choice === 'auto') return { functionCallingConfig: { mode: FunctionCallingConfigMode.AUTO } };
  if (choice === 'none') return { functionCallingConfig: { mode: FunctionCallingConfigMode.NONE } };
  if (choice === 'required') {
    return { functionCallingConfig: { mode: FunctionCallingConfigMode.ANY } };
  }
  return {
    functionCallingConfig: {
      mode: FunctionCallingConfigMode.ANY,
      allowedFunctionNames: [toolName(choice.name)],
    },
  };
}
