import type { WireInspector, WireToolCall, WireToolResult } from '@yourtool/conformance';
import { OPENAI_TOOL_ERROR_PREFIX } from '../src/codec.js';

type Part = Record<string, unknown> & { type: string };
type WireMessage = {
  role: string;
  content?: string | Part[] | null;
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
};
type Body = {
  messages?: WireMessage[];
  max_completion_tokens?: number;
  max_tokens?: number;
  stop?: string | string[];
  temperature?: number;
  tools?: Array<{ function: { name: string } }>;
  response_format?: { type: string; json_schema?: { schema?: unknown } };
  stream?: boolean;
};

const messages = (body: unknown) => (body as Body).messages ?? [];
const conversation = (body: unknown) => messages(body).filter((m) => m.role !== 'system');
const textOf = (content: WireMessage['content']): string =>
  typeof content === 'string'
    ? content
    : (content ?? [])
        .filter((p) => p.type === 'text')
        .map((p) => String(p.text))
        .join('');

/**
 * Reads the Chat Completions request shape for the conformance suite. A tool result is an error
 * when its text starts with the adapter's documented marker (decision 0040).
 */
export const chatCompletionsWire: WireInspector = {
  systemText: (body) => {
    const system = messages(body).filter((m) => m.role === 'system' || m.role === 'developer');
    return system.length === 0 ? null : system.map((m) => textOf(m.content)).join('\n\n');
  },
  roles: (body) => conversation(body).map((m) => m.role),
  texts: (body) =>
    conversation(body)
      .filter((m) => m.role === 'user' || m.role === 'assistant')
      .flatMap((m) =>
        typeof m.content === 'string'
          ? [m.content]
          : (m.content ?? []).filter((p) => p.type === 'text').map((p) => String(p.text)),
      ),
  maxOutputTokens: (body) => (body as Body).max_completion_tokens ?? (body as Body).max_tokens,
  stopSequences: (body) => {
    const stop = (body as Body).stop;
    return stop === undefined ? undefined : Array.isArray(stop) ? stop : [stop];
  },
  temperature: (body) => (body as Body).temperature,
  toolNames: (body) => ((body as Body).tools ?? []).map((t) => t.function.name),
  toolCalls: (body) =>
    conversation(body).flatMap((m) =>
      (m.tool_calls ?? []).map(
        (c): WireToolCall => ({
          id: c.id,
          name: c.function.name,
          input: JSON.parse(c.function.arguments),
        }),
      ),
    ),
  toolResults: (body) =>
    conversation(body)
      .filter((m) => m.role === 'tool')
      .map((m): WireToolResult => {
        const text = textOf(m.content);
        return {
          id: String(m.tool_call_id),
          text,
          isError: text.startsWith(OPENAI_TOOL_ERROR_PREFIX),
        };
      }),
  imageCount: (body) =>
    conversation(body).reduce(
      (n, m) =>
        n + (Array.isArray(m.content) ? m.content.filter((p) => p.type === 'image_url').length : 0),
      0,
    ),
  toolChoice: (body) => {
    const b = body as { tool_choice?: string | { function: { name: string } }; tools?: unknown[] };
    if (b.tool_choice === undefined) return (b.tools ?? []).length === 0 ? 'none' : undefined;
    if (typeof b.tool_choice === 'string') return b.tool_choice as 'auto' | 'none' | 'required';
    return { type: 'tool', name: b.tool_choice.function.name };
  },
  outputSchema: (body) => (body as Body).response_format?.json_schema?.schema,
  hasEmptyContent: (body) =>
    messages(body).some((m) => {
      if (m.role === 'assistant' && (m.tool_calls?.length ?? 0) > 0 && m.content == null) {
        return false;
      }
      if (m.content == null) return true;
      if (typeof m.content === 'string') return m.content.trim() === '';
      return (
        m.content.length === 0 ||
        m.content.some((p) => p.type === 'text' && String(p.text).trim() === '')
      );
    }),
  stream: (body) => (body as Body).stream === true,
};
