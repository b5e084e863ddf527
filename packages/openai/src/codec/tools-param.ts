import type { AdapterCapabilities, CanonicalRequest, ToolChoice } from '@yourtool/core';
import type OpenAI from 'openai';

type Warn = (event: string, reason: string, extra?: Record<string, unknown>) => void;

/** What both OpenAI APIs need to know to send tools. */
export interface ToolsParamOptions {
  capabilities: AdapterCapabilities;
  wireName: string;
}

/**
 * Whether the request's tools can be sent; a model without tools gets none (a
 * `parameter_dropped` WARN, with the tool choice dropped along).
 */
function toolsSendable(request: CanonicalRequest, options: ToolsParamOptions, warn: Warn): boolean {
  if (request.tools.length === 0) return false;
  if (options.capabilities.supports_tools) return true;
  warn('parameter_dropped', `${options.wireName} does not support tools; tools were not sent`, {
    parameter: 'tools',
  });
  return false;
}

/** A canonical tool choice as Chat Completions takes it (`auto`, `none`, `required`, a function). */
export function chatToolChoice(
  choice: ToolChoice,
  toolName: (name: string) => string,
): OpenAI.ChatCompletionToolChoiceOption {
  if (typeof choice === 'string') return choice;
  return { type: 'function', function: { name: toolName(choice.name) } };
}

/** A canonical tool choice as the Responses API takes it (`auto`, `none`, `required`, a function). */
export function responsesToolChoice(
  choice: ToolChoice,
  toolName: (name: string) => string,
): OpenAI.Responses.ResponseCreateParams['tool_choice'] {
  if (typeof choice === 'string') return choice;
  return { type: 'function', name: toolName(choice.name) };
}

/** Chat Completions' `tools` and `tool_choice` for a request (nothing when no tools go out). */
export function chatToolsParams(
  request: CanonicalRequest,
  options: ToolsParamOptions,
  toolName: (name: string) => string,
  warn: Warn,
): Pick<OpenAI.ChatCompletionCreateParamsNonStreaming, 'tools' | 'tool_choice'> {
  if (!toolsSendable(request, options, warn)) return {};
  const tools = request.tools.map(
    (tool): OpenAI.ChatCompletionFunctionTool => ({
      type: 'function',
      function: {
        name: toolName(tool.name),
        description: tool.description,
        parameters: tool.input_schema,
      },
    }),
  );
  return request.tool_choice === undefined
    ? { tools }
    : { tools, tool_choice: chatToolChoice(request.tool_choice, toolName) };
}

/** The Responses API's `tools` and `tool_choice` for a request (nothing when no tools go out). */
export function responsesToolsParams(
  request: CanonicalRequest,
  options: ToolsParamOptions,
  toolName: (name: string) => string,
  warn: Warn,
): Pick<OpenAI.Responses.ResponseCreateParams, 'tools' | 'tool_choice'> {
  if (!toolsSendable(request, options, warn)) return {};
  const tools = request.tools.map(
    (tool): OpenAI.Responses.FunctionTool => ({
      type: 'function',
      name: toolName(tool.name),
      description: tool.description,
      parameters: tool.input_schema,
      strict: false,
    }),
  );
  return request.tool_choice === undefined
    ? { tools }
    : { tools, tool_choice: responsesToolChoice(request.tool_choice, toolName) };
}
