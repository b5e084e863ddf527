import type { WireInspector, WireToolCall, WireToolResult } from '@yourtool/conformance';
import { ACME_TOOL_ERROR_PREFIX } from '../src/index.js';

interface Body {
  messages?: Array<{
    role: string;
    content: string | null;
    tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
    tool_call_id?: string;
  }>;
  max_tokens?: number;
  stop?: string[];
  temperature?: number;
  tools?: Array<{ function: { name: string } }>;
  stream?: boolean;
}

const messages = (body: unknown) => (body as Body).messages ?? [];
const conversation = (body: unknown) => messages(body).filter((m) => m.role !== 'system');

/** Reads the Acme request body for the conformance suite. */
export const acmeWire: WireInspector = {
  systemText: (body) => {
    const system = messages(body).filter((m) => m.role === 'system');
    return system.length === 0 ? null : system.map((m) => m.content ?? '').join('\n\n');
  },
  roles: (body) => conversation(body).map((m) => m.role),
  texts: (body) =>
    conversation(body)
      .filter((m) => (m.role === 'user' || m.role === 'assistant') && m.content !== null)
      .map((m) => m.content ?? ''),
  maxOutputTokens: (body) => (body as Body).max_tokens,
  stopSequences: (body) => (body as Body).stop,
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
      .map(
        (m): WireToolResult => ({
          id: String(m.tool_call_id),
          text: m.content ?? '',
          isError: (m.content ?? '').startsWith(ACME_TOOL_ERROR_PREFIX),
        }),
      ),
  imageCount: () => 0,
  outputSchema: () => undefined,
  hasEmptyContent: (body) =>
    messages(body).some((m) =>
      m.role === 'assistant' && (m.tool_calls?.length ?? 0) > 0
        ? false
        : m.content === null || m.content.trim() === '',
    ),
  stream: (body) => (body as Body).stream === true,
};
