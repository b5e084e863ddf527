import type { WireInspector, WireToolCall, WireToolResult } from '@yourtool/conformance';
import { TOOL_ERROR_PREFIX } from '../src/codec.js';

type WireMessage = {
  role: string;
  content?: string;
  images?: string[];
  thinking?: string;
  tool_calls?: Array<{ id?: string; function: { name: string; arguments: unknown } }>;
  tool_name?: string;
  tool_call_id?: string;
};
type Body = {
  messages?: WireMessage[];
  tools?: Array<{ function: { name: string } }>;
  format?: unknown;
  stream?: boolean;
  options?: { num_predict?: number; stop?: string[]; temperature?: number };
};

const messages = (body: unknown): WireMessage[] => (body as Body).messages ?? [];
const conversation = (body: unknown) => messages(body).filter((m) => m.role !== 'system');

/** Reads the `/api/chat` request shape for the conformance suite. */
export const ollamaWire: WireInspector = {
  systemText: (body) => {
    const system = messages(body).filter((m) => m.role === 'system');
    return system.length === 0 ? null : system.map((m) => m.content ?? '').join('\n\n');
  },
  roles: (body) => conversation(body).map((m) => m.role),
  texts: (body) =>
    conversation(body)
      .filter((m) => (m.role === 'user' || m.role === 'assistant') && m.content)
      .map((m) => m.content ?? ''),
  maxOutputTokens: (body) => (body as Body).options?.num_predict,
  stopSequences: (body) => (body as Body).options?.stop,
  temperature: (body) => (body as Body).options?.temperature,
  toolNames: (body) => ((body as Body).tools ?? []).map((t) => t.function.name),
  toolCalls: (body) =>
    conversation(body).flatMap((m) =>
      (m.tool_calls ?? []).map(
        (c): WireToolCall => ({
          id: c.id ?? '',
          name: c.function.name,
          input: c.function.arguments,
        }),
      ),
    ),
  toolResults: (body) =>
    conversation(body)
      .filter((m) => m.role === 'tool')
      .map(
        (m): WireToolResult => ({
          id: m.tool_call_id ?? '',
          text: m.content ?? '',
          isError: (m.content ?? '').startsWith(TOOL_ERROR_PREFIX),
          ...(m.tool_name !== undefined ? { name: m.tool_name } : {}),
        }),
      ),
  imageCount: (body) => messages(body).reduce((n, m) => n + (m.images?.length ?? 0), 0),
  // Ollama has no tool choice: tools offered read as auto, none offered as none
  toolChoice: (body) => (((body as Body).tools ?? []).length === 0 ? 'none' : 'auto'),
  outputSchema: (body) => (body as Body).format,
  hasEmptyContent: (body) =>
    messages(body).some(
      (m) =>
        (m.content ?? '').trim() === '' &&
        !m.images?.length &&
        !m.tool_calls?.length &&
        !m.thinking,
    ),
  stream: (body) => (body as Body).stream === true,
};
