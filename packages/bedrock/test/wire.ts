import type { WireInspector, WireToolCall, WireToolResult } from '@yourtool/conformance';

type Block = Record<string, unknown> & {
  text?: string;
  image?: unknown;
  toolUse?: { toolUseId?: string; name?: string; input?: unknown };
  toolResult?: {
    toolUseId?: string;
    status?: string;
    content?: Array<{ text?: string; json?: unknown; image?: unknown }>;
  };
  reasoningContent?: unknown;
  cachePoint?: unknown;
};
type Body = {
  system?: Array<{ text?: string; cachePoint?: unknown }>;
  messages?: Array<{ role: string; content?: Block[] }>;
  inferenceConfig?: { maxTokens?: number; stopSequences?: string[]; temperature?: number };
  toolConfig?: { tools?: Array<{ toolSpec?: { name: string } }> };
  outputConfig?: { textFormat?: { structure?: { jsonSchema?: { schema?: string } } } };
};

const blocks = (body: unknown): Block[] =>
  ((body as Body).messages ?? []).flatMap((m) => m.content ?? []);

const resultText = (result: NonNullable<Block['toolResult']>): string =>
  (result.content ?? [])
    .map((c) =>
      typeof c.text === 'string' ? c.text : c.json !== undefined ? JSON.stringify(c.json) : '',
    )
    .join('');

/** Reads the Converse request shape for the conformance suite. */
export const bedrockWire: WireInspector = {
  systemText: (body) => {
    const system = (body as Body).system;
    if (system === undefined) return null;
    return system
      .filter((b) => typeof b.text === 'string')
      .map((b) => b.text)
      .join('');
  },
  roles: (body) => ((body as Body).messages ?? []).map((m) => m.role),
  texts: (body) =>
    blocks(body)
      .filter((b) => typeof b.text === 'string')
      .map((b) => String(b.text)),
  maxOutputTokens: (body) => (body as Body).inferenceConfig?.maxTokens,
  stopSequences: (body) => (body as Body).inferenceConfig?.stopSequences,
  temperature: (body) => (body as Body).inferenceConfig?.temperature,
  toolNames: (body) =>
    ((body as Body).toolConfig?.tools ?? []).flatMap((t) => (t.toolSpec ? [t.toolSpec.name] : [])),
  toolCalls: (body) =>
    blocks(body)
      .filter((b) => b.toolUse !== undefined)
      .map(
        ({ toolUse }): WireToolCall => ({
          id: String(toolUse?.toolUseId),
          name: String(toolUse?.name),
          input: toolUse?.input,
        }),
      ),
  toolResults: (body) =>
    blocks(body)
      .filter((b) => b.toolResult !== undefined)
      .map(({ toolResult }): WireToolResult => {
        const result = toolResult ?? {};
        return {
          id: String(result.toolUseId),
          text: resultText(result),
          isError: result.status === 'error',
        };
      }),
  imageCount: (body) =>
    blocks(body).reduce(
      (n, b) =>
        n +
        (b.image !== undefined ? 1 : 0) +
        (b.toolResult?.content ?? []).filter((c) => c.image !== undefined).length,
      0,
    ),
  toolChoice: (body) => {
    const config = (body as { toolConfig?: { toolChoice?: Record<string, { name?: string }> } })
      .toolConfig;
    if (config === undefined) return 'none';
    const choice = config.toolChoice;
    if (choice === undefined) return undefined;
    if (choice.any) return 'required';
    if (choice.tool) return { type: 'tool', name: String(choice.tool.name) };
    return 'auto';
  },
  outputSchema: (body) => {
    const schema = (body as Body).outputConfig?.textFormat?.structure?.jsonSchema?.schema;
    // Converse takes the schema as a JSON string
    return typeof schema === 'string' ? JSON.parse(schema) : undefined;
  },
  hasEmptyContent: (body) =>
    ((body as Body).messages ?? []).some(
      (m) =>
        (m.content ?? []).length === 0 ||
        (m.content ?? []).some((b) => typeof b.text === 'string' && b.text.trim() === ''),
    ),
  // Bedrock asks for a stream by path, not in the body
  stream: (_body, path) => /\/converse-stream$/.test(path),
};
