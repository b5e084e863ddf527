import {
  type CanonicalRequest,
  type ContentBlock,
  createMessage,
  type Message,
  type MessageMetadata,
  newRequestId,
  newSessionId,
} from '@yourtool/core';
import { assistantTestMetadata, PNG_1PX_BASE64 } from '@yourtool/testkit';

export const session_id = newSessionId();
export const PNG = PNG_1PX_BASE64;

export const text = (t: string): ContentBlock => ({ type: 'text', text: t });
export const user = (...content: ContentBlock[]) =>
  createMessage({ session_id, role: 'user', content });
export const assistant = (
  content: ContentBlock[],
  model: string,
  extra: Partial<MessageMetadata> = {},
) =>
  createMessage({
    session_id,
    role: 'assistant',
    content,
    metadata: { ...assistantTestMetadata(model), ...extra },
  });
export const result = (id: string, content: ContentBlock[], is_error = false) =>
  createMessage({
    session_id,
    role: 'tool',
    content: [{ type: 'tool_result', tool_use_id: id, content: content as never, is_error }],
    metadata: { parent_tool_use_id: id },
  });
export const system = (t: string) =>
  createMessage({ session_id, role: 'system', content: [text(t)] });

export function req(
  model: string,
  messages: Message[],
  extra: Partial<CanonicalRequest> = {},
): CanonicalRequest {
  return {
    request_id: newRequestId(),
    model,
    messages,
    tools: [],
    stop_sequences: [],
    max_output_tokens: 2048,
    stream: false,
    ...extra,
  };
}

export const readFile = {
  name: 'read_file',
  description: 'Read a file',
  input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  side_effects: 'read' as const,
  requires_workspace: true,
};
export const renderChart = {
  name: 'render_chart',
  description: 'Render a chart',
  input_schema: {
    type: 'object',
    properties: { series: { type: 'array', items: { type: 'number' } } },
  },
  side_effects: 'write' as const,
  requires_workspace: true,
};

/**
 * A history produced on Anthropic (Claude with thinking): signed thinking and redacted thinking,
 * a tool call under Claude's own id, a tool result holding text and an image, an error result,
 * an empty text block, and a final tool call left without a result.
 */
export function anthropicHistory(map: {
  toCanonical(provider: string, id: string): string;
}): Message[] {
  const claude = 'anthropic:claude-sonnet-4-6';
  const chart = map.toCanonical('anthropic', 'toolu_01A09q90qw90lq917835lq9');
  const notes = map.toCanonical('anthropic', 'toolu_01B7x3Kp2LmNqR8sT5vW9yZ0aBcDeFgHiJ');
  const dangling = map.toCanonical('anthropic', 'toolu_01Dangling0000000000000');
  return [
    system('You are a data assistant.'),
    user(text('Chart the sales and read NOTES.md.')),
    assistant(
      [
        { type: 'thinking', text: 'I should render the chart first.', signature: 'EqQBsig-claude' },
        { type: 'redacted_thinking', data: 'EmwKAhgBredacted-claude' },
        text(''),
        text('Rendering the chart and reading the notes.'),
        { type: 'tool_use', id: chart, name: 'render_chart', input: { series: [1, 2, 3] } },
        { type: 'tool_use', id: notes, name: 'read_file', input: { path: 'NOTES.md' } },
      ],
      claude,
    ),
    result(chart, [
      text('Rendered chart.png'),
      { type: 'image', source: { kind: 'base64', data: PNG }, media_type: 'image/png' },
    ]),
    result(notes, [text('ENOENT: no such file')], true),
    assistant(
      [
        { type: 'thinking', text: 'Notes are missing; retry later.', signature: 'EqQBsig-2' },
        { type: 'tool_use', id: dangling, name: 'read_file', input: { path: 'README.md' } },
      ],
      claude,
      { status: 'cancelled' },
    ),
    user(text('Never mind the notes. What does the chart show?')),
  ];
}
