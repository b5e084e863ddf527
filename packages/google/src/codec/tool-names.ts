import type { Logger } from '@yourtool/core';
import {
  createToolNamer,
  GEMINI_TOOL_NAME_RULES,
  type ToolNameRules,
} from '@yourtool/core/adapter';
import { GOOGLE } from './signatures.js';

/**
 * What Gemini takes as a function name: a letter or `_` first, then letters, digits, `_`, `.`,
 * `-` or `:`, at most 64 characters (core's `GEMINI_TOOL_NAME_RULES`). A history tool use named
 * otherwise goes out under a derived name, stable and read back as canonical, so an imported
 * history with names Gemini refuses can still be sent.
 */
export const GOOGLE_TOOL_NAME_RULES: ToolNameRules = GEMINI_TOOL_NAME_RULES;

/**
 * The wire name of each canonical tool name of one request (core's `createToolNamer` under
 * {@link GOOGLE_TOOL_NAME_RULES}), logging a `tool_name_mapped` WARN once per distinct name that
 * had to be renamed.
 */
export function googleToolNamer(logger: Logger, requestId: string): (name: string) => string {
  return createToolNamer({ rules: GOOGLE_TOOL_NAME_RULES, adapter: GOOGLE, logger, requestId });
}
