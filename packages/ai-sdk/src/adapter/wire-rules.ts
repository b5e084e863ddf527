import { ANTHROPIC_TOOL_ID_RULES, OPENAI_TOOL_ID_RULES, type ToolIdRules } from '@yourtool/core';
import {
  canonicalToolName,
  createToolNamer,
  requestToolNames,
  STRICT_TOOL_NAME_RULES,
  type ToolNameRules,
  type WireCall,
} from '@yourtool/core/adapter';

/** The tool id and tool name rules an AI SDK provider's wire holds tool ids and names to. */
export interface WireRules {
  toolIds: ToolIdRules;
  toolNames: ToolNameRules;
}

/**
 * The rules by the model's `provider` (`anthropic.messages`, `openai.responses`, ...): the
 * provider's own id rule where this project knows it, else OpenAI's (the strictest common one);
 * tool names by the strict rule every provider accepts (decision 0140).
 */
export function wireRulesFor(provider: string, overrides: Partial<WireRules> = {}): WireRules {
  const family = provider.split('.')[0];
  const toolIds = family === 'anthropic' ? ANTHROPIC_TOOL_ID_RULES : OPENAI_TOOL_ID_RULES;
  return { toolIds, toolNames: STRICT_TOOL_NAME_RULES, ...overrides };
}

/** Canonical tool name → wire name for one call, with one `tool_name_mapped` WARN per name. */
export function callToolNamer(call: WireCall, rules: WireRules): (name: string) => string {
  return createToolNamer({
    rules: rules.toolNames,
    adapter: call.modelProvider,
    logger: call.logger,
    requestId: call.request.request_id,
  });
}

/** Wire name → the canonical name it was derived from (the request's tool names), else as is. */
export function canonicalNameOf(call: WireCall, rules: WireRules): (wire: string) => string {
  const names = requestToolNames(call.request);
  return (wire) => canonicalToolName(wire, names, rules.toolNames);
}
