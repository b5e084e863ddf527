import type { WireInspector, WireToolCall, WireToolResult } from '@yourtool/conformance';

type Block = Record<string, unknown> & { type: string };
type Body = {
  system?: string | Array<{ text: string }>;
  messages?: Array<{ role: string; content: string | Block[] }>;
  max_tokens?: number;
  stop_sequences?: string[];
  temperature?: number;
  tools?: Array<{ name: string }>;
  output_config?: { format?: { schema?: unknown } };
  stream?: boolean;
};

const blocks = (body: unknown): Array<{ role: string; block: Block }> =>
  ((body as Body).messages ?? []).flatMap((m) =>
    typeof m.content === 'string'
      ? [{ role: m.role, block: { type: 'text', text: m.content } }]
      : m.content.map((block) => ({ role: m.role, block })),
  );

const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? (content as Block[])
          .filter((b) => b.type === 'text')
          .map((b) => String(b.text))
          .join('')
      : '';

/** Reads the Messages API request shape for the conformance suite. */
export const anthropicWire: WireInspector = {
  systemText: (body) => {
    const system = (body as Body).system;
    if (system === undefined) return null;
    return typeof system === 'string' ? system : system.map((b) => b.text).join('');
  },
  roles: (body) => ((body as Body).messages ?? []).map((m) => m.role),
  texts: (body) =>
    blocks(body)
      .filter(({ block }) => block.type === 'text')
      .map(({ block }) => String(block.text)),
  maxOutputTokens: (body) => (body as Body).max_tokens,
  stopSequences: (body) => (body as Body).stop_sequences,
  temperature: (body) => (body as Body).temperature,
  toolNames: (body) => ((body as Body).tools ?? []).map((t) => t.name),
  toolCalls: (body) =>
    blocks(body)
      .filter(({ block }) => block.type === 'tool_use')
      .map(
        ({ block }): WireToolCall => ({
          id: String(block.id),
          name: String(block.name),
          input: block.input,
        }),
      ),
  toolResults: (body) =>
    blocks(body)
      .filter(({ block }) => block.type === 'tool_result')
      .map(
        ({ block }): WireToolResult => ({
          id: String(block.tool_use_id),
          text: textOf(block.content),
          isError: block.is_error === true,
        }),
      ),
  imageCount: (body) =>
    blocks(body).reduce((n, { block }) => {
      if (block.type === 'image') return n + 1;
      if (block.type === 'tool_result' && Array.isArray(block.content)) {
        return n + (block.content as Block[]).filter((b) => b.type === 'image').length;
      }
      return n;
    }, 0),
  toolChoice: (body) => {
    const choice = (body as { tool_choice?: { type: string; name?: string } }).tool_choice;
    if (choice === undefined) return ((body as Body).tools ?? []).length === 0 ? 'none' : undefined;
    if (choice.type === 'any') return 'required';
    if (choice.type === 'tool') return { type: 'tool', name: String(choice.name) };
    return choice.type as 'auto' | 'none';
  },
  outputSchema: (body) => (body as Body).output_config?.format?.schema,
  hasEmptyContent: (body) =>
    ((body as Body).messages ?? []).some(
      (m) =>
        (typeof m.content === 'string' ? m.content.trim() === '' : m.content.length === 0) ||
        (Array.isArray(m.content) &&
          m.content.some((b) => b.type === 'text' && String(b.text).trim() === '')),
    ),
  stream: (body) => (body as Body).stream === true,
};
