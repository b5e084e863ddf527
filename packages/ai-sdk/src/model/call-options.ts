import type { LanguageModelV4CallOptions, SharedV4Warning } from '@ai-sdk/provider';
import {
  type CanonicalRequestInput,
  newRequestId,
  type ToolChoice,
  type ToolDefinition,
} from '@yourtool/core';
import { type PromptContext, promptToCanonical } from './prompt.js';
import type { ToolNameBridge } from './tool-names.js';

/** A canonical request built from AI SDK call options, with the warnings for what was dropped. */
export interface BuiltRequest {
  request: CanonicalRequestInput;
  warnings: SharedV4Warning[];
}

function toolChoiceOf(
  choice: LanguageModelV4CallOptions['toolChoice'],
  names: ToolNameBridge,
): ToolChoice | undefined {
  if (!choice) return undefined;
  return choice.type === 'tool'
    ? { type: 'tool', name: names.canonical(choice.toolName) }
    : choice.type;
}

function toolsOf(
  options: LanguageModelV4CallOptions,
  warnings: SharedV4Warning[],
  names: ToolNameBridge,
): ToolDefinition[] {
  const tools: ToolDefinition[] = [];
  for (const tool of options.tools ?? []) {
    if (tool.type !== 'function') {
      warnings.push({ type: 'unsupported', feature: `provider tool ${tool.id}` });
      continue;
    }
    tools.push({
      name: names.canonical(tool.name),
      description: tool.description ?? '',
      input_schema: tool.inputSchema as Record<string, unknown>,
      // The application runs the tools, so their effects are its own to judge.
      side_effects: 'none',
      requires_workspace: false,
    });
  }
  return tools;
}

function unsupported(options: LanguageModelV4CallOptions, warnings: SharedV4Warning[]): void {
  const dropped = ['topP', 'topK', 'presencePenalty', 'frequencyPenalty', 'seed'] as const;
  for (const name of dropped) {
    if (options[name] !== undefined) warnings.push({ type: 'unsupported', feature: name });
  }
  // The canonical request has no reasoning effort: an adapter's thinking comes from its own options.
  if (options.reasoning !== undefined && options.reasoning !== 'provider-default') {
    warnings.push({ type: 'unsupported', feature: 'reasoning' });
  }
}

/**
 * AI SDK call options → a canonical request for `model`: the prompt converted, tools as
 * function tools, `toolChoice` as `tool_choice`, a JSON `responseFormat` with a schema as
 * `output_schema`; sampling options the canonical request has no field for become warnings.
 */
export function buildRequest(
  options: LanguageModelV4CallOptions,
  model: string,
  defaults: { session_id: string; max_output_tokens: number; toolNames: ToolNameBridge },
): BuiltRequest {
  const warnings: SharedV4Warning[] = [];
  const request_id = newRequestId();
  const context: PromptContext = {
    session_id: defaults.session_id,
    model,
    request_id,
    toolNames: defaults.toolNames,
  };
  const prompt = promptToCanonical(options.prompt, context);
  unsupported(options, warnings);
  const format = options.responseFormat;
  if (format?.type === 'json' && !format.schema) {
    warnings.push({ type: 'unsupported', feature: 'responseFormat json without a schema' });
  }
  const request: CanonicalRequestInput = {
    request_id,
    model,
    messages: prompt.messages,
    system_prompt: prompt.system_prompt,
    tools: toolsOf(options, warnings, defaults.toolNames),
    max_output_tokens: options.maxOutputTokens ?? defaults.max_output_tokens,
    stop_sequences: options.stopSequences ?? [],
    temperature: options.temperature ?? null,
    output_schema:
      format?.type === 'json' && format.schema ? (format.schema as Record<string, unknown>) : null,
  };
  const choice = toolChoiceOf(options.toolChoice, defaults.toolNames);
  if (choice !== undefined && (request.tools?.length ?? 0) > 0) request.tool_choice = choice;
  return { request, warnings };
}
