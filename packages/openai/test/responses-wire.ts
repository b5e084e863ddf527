import type { WireInspector, WireToolCall, WireToolResult } from '@yourtool/conformance';
import { OPENAI_TOOL_ERROR_PREFIX } from '../src/codec.js';

type Part = Record<string, unknown> & { type: string };
type Item = {
  type?: string;
  role?: string;
  content?: string | Part[];
  call_id?: string;
  name?: string;
  arguments?: string;
  output?: string | Part[];
  summary?: Part[];
  encrypted_content?: string;
};
type Body = {
  instructions?: string;
  input?: Item[];
  max_output_tokens?: number;
  temperature?: number;
  tools?: Array<{ name: string }>;
  text?: { format?: { type: string; schema?: unknown } };
  stream?: boolean;
};

const input = (body: unknown) => (body as Body).input ?? [];
const messages = (body: unknown) =>
  input(body).filter((i) => (i.type === undefined || i.type === 'message') && i.role);
const textOf = (content: string | Part[] | undefined): string =>
  typeof content === 'string'
    ? content
    : (content ?? [])
        .filter((p) => p.type === 'input_text' || p.type === 'output_text')
        .map((p) => String(p.text))
        .join('');
const images = (content: string | Part[] | undefined) =>
  Array.isArray(content) ? content.filter((p) => p.type === 'input_image').length : 0;

/**
 * Reads the Responses request shape for the conformance suite: `instructions` is the system
 * text, message items give roles and texts, `function_call` / `function_call_output` items the
 * calls and results (an error result starts with the documented marker, decision 0040).
 */
export const responsesWire: WireInspector = {
  systemText: (body) => (body as Body).instructions ?? null,
  roles: (body) => messages(body).map((m) => String(m.role)),
  texts: (body) => messages(body).map((m) => textOf(m.content)),
  maxOutputTokens: (body) => (body as Body).max_output_tokens,
  // the Responses API has no stop parameter
  stopSequences: () => undefined,
  temperature: (body) => (body as Body).temperature,
  toolNames: (body) => ((body as Body).tools ?? []).map((t) => t.name),
  toolCalls: (body) =>
    input(body)
      .filter((i) => i.type === 'function_call')
      .map(
        (i): WireToolCall => ({
          id: String(i.call_id),
          name: String(i.name),
          input: JSON.parse(String(i.arguments)),
        }),
      ),
  toolResults: (body) =>
    input(body)
      .filter((i) => i.type === 'function_call_output')
      .map((i): WireToolResult => {
        const text = textOf(i.output);
        return { id: String(i.call_id), text, isError: text.startsWith(OPENAI_TOOL_ERROR_PREFIX) };
      }),
  imageCount: (body) =>
    input(body).reduce(
      (n, i) => n + images(i.type === 'function_call_output' ? i.output : i.content),
      0,
    ),
  toolChoice: (body) => {
    const b = body as { tool_choice?: string | { name: string }; tools?: unknown[] };
    if (b.tool_choice === undefined) return (b.tools ?? []).length === 0 ? 'none' : undefined;
    if (typeof b.tool_choice === 'string') return b.tool_choice as 'auto' | 'none' | 'required';
    return { type: 'tool', name: b.tool_choice.name };
  },
  outputSchema: (body) => (body as Body).text?.format?.schema,
  hasEmptyContent: (body) =>
    input(body).some((i) => {
      if (i.type === 'function_call') return !i.name;
      if (i.type === 'reasoning') return !i.encrypted_content;
      if (i.type === 'function_call_output') {
        return typeof i.output === 'string'
          ? i.output.trim() === ''
          : (i.output ?? []).length === 0;
      }
      const content = i.content;
      if (content === undefined) return true;
      if (typeof content === 'string') return content.trim() === '';
      return (
        content.length === 0 ||
        content.some(
          (p) =>
            (p.type === 'input_text' || p.type === 'output_text') && String(p.text).trim() === '',
        )
      );
    }),
  stream: (body) => (body as Body).stream === true,
};
