import type { WireInspector, WireToolCall, WireToolResult } from '@yourtool/conformance';

type Part = Record<string, unknown> & {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  functionCall?: { id?: string; name?: string; args?: unknown };
  functionResponse?: {
    id?: string;
    name?: string;
    response?: Record<string, unknown>;
    parts?: Array<{ inlineData?: unknown; fileData?: unknown }>;
  };
  inlineData?: unknown;
  fileData?: unknown;
};
type Body = {
  contents?: Array<{ role: string; parts?: Part[] }>;
  systemInstruction?: { parts?: Part[] };
  generationConfig?: {
    maxOutputTokens?: number;
    stopSequences?: string[];
    temperature?: number;
    responseJsonSchema?: unknown;
  };
  tools?: Array<{ functionDeclarations?: Array<{ name: string }> }>;
};

const allParts = (body: unknown): Part[] =>
  ((body as Body).contents ?? []).flatMap((c) => c.parts ?? []);

/**
 * Gemini says "stream" in the URL (`:streamGenerateContent?alt=sse`), not in the body, and
 * the suite's inspector sees bodies only: the adapter under test gets this fetch, which notes
 * for each request body whether it went to the streaming endpoint.
 */
const streamed = new Map<string, boolean>();

/** A fetch that records which request bodies were sent to the streaming endpoint. */
export const recordingFetch: typeof fetch = (input, init) => {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  if (typeof init?.body === 'string') {
    streamed.set(JSON.stringify(JSON.parse(init.body)), url.includes(':streamGenerateContent'));
  }
  return fetch(input, init);
};

/** Reads the `generateContent` request shape for the conformance suite. */
export const geminiWire: WireInspector = {
  systemText: (body) => {
    const system = (body as Body).systemInstruction;
    if (!system) return null;
    return (system.parts ?? []).map((p) => p.text ?? '').join('');
  },
  roles: (body) =>
    ((body as Body).contents ?? []).map((c) => (c.role === 'model' ? 'assistant' : c.role)),
  texts: (body) =>
    allParts(body)
      .filter((p) => typeof p.text === 'string' && p.thought !== true)
      .map((p) => String(p.text)),
  maxOutputTokens: (body) => (body as Body).generationConfig?.maxOutputTokens,
  stopSequences: (body) => (body as Body).generationConfig?.stopSequences,
  temperature: (body) => (body as Body).generationConfig?.temperature,
  toolNames: (body) =>
    ((body as Body).tools ?? []).flatMap((t) => (t.functionDeclarations ?? []).map((f) => f.name)),
  toolCalls: (body) =>
    allParts(body).flatMap((p): WireToolCall[] =>
      p.functionCall
        ? [
            {
              id: p.functionCall.id ?? '',
              name: String(p.functionCall.name),
              input: p.functionCall.args,
            },
          ]
        : [],
    ),
  toolResults: (body) =>
    allParts(body).flatMap((p): WireToolResult[] => {
      const r = p.functionResponse;
      if (!r) return [];
      const response = r.response ?? {};
      const isError = 'error' in response;
      return [
        {
          id: r.id ?? '',
          text: String(isError ? response.error : (response.output ?? '')),
          isError,
          ...(r.name !== undefined ? { name: r.name } : {}),
        },
      ];
    }),
  // images in turns, and those nested in function responses (Gemini 3, decision 0151)
  imageCount: (body) =>
    allParts(body)
      .flatMap((p) => [p, ...(p.functionResponse?.parts ?? [])])
      .filter((p) => p.inlineData || p.fileData).length,
  toolChoice: (body) => {
    const b = body as {
      tools?: unknown[];
      toolConfig?: { functionCallingConfig?: { mode?: string; allowedFunctionNames?: string[] } };
    };
    const config = b.toolConfig?.functionCallingConfig;
    if (config === undefined) return (b.tools ?? []).length === 0 ? 'none' : undefined;
    if (config.mode === 'NONE') return 'none';
    if (config.mode === 'AUTO') return 'auto';
    const only = config.allowedFunctionNames ?? [];
    return only.length === 1 ? { type: 'tool', name: String(only[0]) } : 'required';
  },
  outputSchema: (body) => (body as Body).generationConfig?.responseJsonSchema,
  hasEmptyContent: (body) =>
    ((body as Body).contents ?? []).some(
      (c) =>
        (c.parts ?? []).length === 0 ||
        (c.parts ?? []).some(
          (p) =>
            typeof p.text === 'string' &&
            p.text.trim() === '' &&
            !p.thoughtSignature &&
            Object.keys(p).length === 1,
        ),
    ),
  stream: (body) => streamed.get(JSON.stringify(body)) === true,
};
