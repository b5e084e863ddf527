import type { FixedReply, WireFormat } from '@yourtool/wire-formats';

// The formats are listed where they are rendered; the recorder names them from there.
export { WIRE_FORMATS, type WireFormat } from '@yourtool/wire-formats';

/** A message of a request, read the same way whatever the wire format. */
export interface RequestMessage {
  /** `tool` for tool results (Anthropic and Gemini carry them in a user turn). */
  role: 'user' | 'assistant' | 'tool';
  /** The message's texts, joined (tool results' texts included; reasoning left out). */
  text: string;
  /** Names of the tools the message calls (assistant turns). */
  toolCalls: string[];
}

/** A request the scripted provider received, as the provider saw it. */
export interface RecordedRequest {
  /** Position among the recorded requests, from 0. */
  index: number;
  method: string;
  /** Path with query string, e.g. `/v1/messages`. */
  path: string;
  /**
   * Header names lower-cased; credential headers (by name, by value shape, or holding one of
   * the provider's secrets) recorded as `[REDACTED]` by core's `redactHeaders`.
   */
  headers: Record<string, string>;
  /** The parsed JSON body, or the raw text when it is not JSON. */
  body: unknown;
  /** The wire format the path speaks; `null` for a path no format serves (answered 404). */
  format: WireFormat | null;
  /** Whether a streamed reply was asked for. */
  stream: boolean;
  /** The model named by the request (Gemini, Bedrock, Claude on Vertex: in the path, URL-decoded). */
  model: string | null;
  /** The system prompt's text (system and developer messages joined), or `null`. */
  system: string | null;
  /** The conversation, provider-independent. */
  messages: RequestMessage[];
  /** Names of the tools the request declares. */
  tools: string[];
  /** Text of the last user message (tool results aside), or `null`. */
  lastUserText: string | null;
  /** The reply the request got (a reply function's result once it settled); `null` if none. */
  reply: FixedReply | null;
  /** True when nothing was scripted for it (answered 500 saying so). */
  unscripted: boolean;
  /** True when the client went away before the response ended. */
  aborted: boolean;
}

/** The provider-independent fields of a {@link RecordedRequest}. */
export type RequestView = Pick<
  RecordedRequest,
  'model' | 'system' | 'messages' | 'tools' | 'lastUserText'
>;

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** Text of a `content` that is a string or a list of parts with `text`. */
function textOf(content: unknown, skip: (part: Json) => boolean = () => false): string {
  if (typeof content === 'string') return content;
  return list(content)
    .filter(isObject)
    .filter((part) => !skip(part))
    .map((part) => {
      if (typeof part.text === 'string') return part.text;
      if (part.type === 'tool_result') return textOf(part.content);
      return '';
    })
    .join('');
}

const isReasoning = (part: Json) =>
  part.type === 'thinking' || part.type === 'redacted_thinking' || part.thought === true;

function lastUser(messages: readonly RequestMessage[]): string | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.role === 'user') return messages[i]?.text ?? null;
  }
  return null;
}

function finish(
  model: string | null,
  system: string[],
  messages: RequestMessage[],
  tools: string[],
): RequestView {
  const joined = system.filter((s) => s !== '').join('\n\n');
  return {
    model,
    system: joined === '' ? null : joined,
    messages,
    tools,
    lastUserText: lastUser(messages),
  };
}

/** The model of a Vertex AI path (`…/models/{model}:rawPredict`), URL-decoded; else `null`. */
function modelInPath(path: string): string | null {
  const model = /\/models\/([^/:?]+):/.exec(path)?.[1];
  return model ? decodeURIComponent(model) : null;
}

/** A Messages request; Claude on Vertex AI names the model in the path, not the body. */
function anthropicView(body: Json, path: string): RequestView {
  const system = typeof body.system === 'string' ? [body.system] : [textOf(body.system)];
  const messages = list(body.messages)
    .filter(isObject)
    .map((m): RequestMessage => {
      const parts = list(m.content).filter(isObject);
      const onlyResults = parts.length > 0 && parts.every((p) => p.type === 'tool_result');
      return {
        role: m.role === 'assistant' ? 'assistant' : onlyResults ? 'tool' : 'user',
        text: textOf(m.content, isReasoning),
        toolCalls: parts.filter((p) => p.type === 'tool_use').map((p) => String(p.name)),
      };
    });
  const tools = list(body.tools)
    .filter(isObject)
    .map((t) => String(t.name));
  return finish(str(body.model) ?? modelInPath(path), system, messages, tools);
}

function chatView(body: Json): RequestView {
  const system: string[] = [];
  const messages: RequestMessage[] = [];
  for (const m of list(body.messages).filter(isObject)) {
    if (m.role === 'system' || m.role === 'developer') {
      system.push(textOf(m.content));
      continue;
    }
    messages.push({
      role: m.role === 'assistant' ? 'assistant' : m.role === 'tool' ? 'tool' : 'user',
      text: textOf(m.content),
      toolCalls: list(m.tool_calls)
        .filter(isObject)
        .map((c) => String((c.function as Json | undefined)?.name)),
    });
  }
  const tools = list(body.tools)
    .filter(isObject)
    .map((t) => String((t.function as Json | undefined)?.name ?? t.name));
  return finish(str(body.model), system, messages, tools);
}

function responsesView(body: Json): RequestView {
  const system: string[] = typeof body.instructions === 'string' ? [body.instructions] : [];
  const messages: RequestMessage[] = [];
  const items =
    typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : body.input;
  for (const item of list(items).filter(isObject)) {
    if (item.type === 'function_call') {
      const last = messages.at(-1);
      if (last?.role === 'assistant') last.toolCalls.push(String(item.name));
      else messages.push({ role: 'assistant', text: '', toolCalls: [String(item.name)] });
    } else if (item.type === 'function_call_output') {
      messages.push({ role: 'tool', text: textOf(item.output), toolCalls: [] });
    } else if (item.role === 'system' || item.role === 'developer') {
      system.push(textOf(item.content));
    } else if (item.role === 'user' || item.role === 'assistant') {
      messages.push({ role: item.role, text: textOf(item.content), toolCalls: [] });
    }
  }
  const tools = list(body.tools)
    .filter(isObject)
    .map((t) => String(t.name));
  return finish(str(body.model), system, messages, tools);
}

function geminiView(body: Json, path: string): RequestView {
  const model = /\/models\/([^/:]+):/.exec(path)?.[1] ?? null;
  const system = [textOf((body.systemInstruction as Json | undefined)?.parts)];
  const messages = list(body.contents)
    .filter(isObject)
    .map((c): RequestMessage => {
      const parts = list(c.parts).filter(isObject);
      const results = parts.filter((p) => isObject(p.functionResponse));
      return {
        role:
          c.role === 'model'
            ? 'assistant'
            : results.length > 0 && results.length === parts.length
              ? 'tool'
              : 'user',
        text:
          textOf(parts, isReasoning) +
          results.map((p) => JSON.stringify((p.functionResponse as Json).response)).join(''),
        toolCalls: parts
          .filter((p) => isObject(p.functionCall))
          .map((p) => String((p.functionCall as Json).name)),
      };
    });
  const tools = list(body.tools)
    .filter(isObject)
    .flatMap((t) => list(t.functionDeclarations).filter(isObject))
    .map((f) => String(f.name));
  return finish(model ? decodeURIComponent(model) : null, system, messages, tools);
}

/** Text of Converse blocks: `text` members, and tool results' `text` and `json` content. */
function converseText(blocks: unknown): string {
  return list(blocks)
    .filter(isObject)
    .map((block) => {
      if (typeof block.text === 'string') return block.text;
      if (!isObject(block.toolResult)) return '';
      return list(block.toolResult.content)
        .filter(isObject)
        .map((part) => (typeof part.text === 'string' ? part.text : JSON.stringify(part.json)))
        .join('');
    })
    .join('');
}

/** A Converse request: the model in the path, `system` blocks, `toolConfig.tools[].toolSpec`. */
function bedrockView(body: Json, path: string): RequestView {
  const model = /\/model\/([^/]+)\/converse(?:-stream)?$/.exec(path.split('?')[0] ?? path)?.[1];
  const system = list(body.system)
    .filter(isObject)
    .map((block) => str(block.text) ?? '');
  const messages = list(body.messages)
    .filter(isObject)
    .map((m): RequestMessage => {
      const blocks = list(m.content).filter(isObject);
      const results = blocks.filter((b) => isObject(b.toolResult));
      const onlyResults = results.length > 0 && results.length === blocks.length;
      return {
        role: m.role === 'assistant' ? 'assistant' : onlyResults ? 'tool' : 'user',
        text: converseText(blocks),
        toolCalls: blocks
          .filter((b) => isObject(b.toolUse))
          .map((b) => String((b.toolUse as Json).name)),
      };
    });
  const tools = list((body.toolConfig as Json | undefined)?.tools)
    .filter(isObject)
    .flatMap((t) => (isObject(t.toolSpec) ? [String(t.toolSpec.name)] : []));
  return finish(model ? decodeURIComponent(model) : null, system, messages, tools);
}

function ollamaView(body: Json): RequestView {
  const system: string[] = [];
  const messages: RequestMessage[] = [];
  for (const m of list(body.messages).filter(isObject)) {
    if (m.role === 'system') {
      system.push(textOf(m.content));
      continue;
    }
    messages.push({
      role: m.role === 'assistant' ? 'assistant' : m.role === 'tool' ? 'tool' : 'user',
      text: textOf(m.content),
      toolCalls: list(m.tool_calls)
        .filter(isObject)
        .map((c) => String((c.function as Json | undefined)?.name)),
    });
  }
  const tools = list(body.tools)
    .filter(isObject)
    .map((t) => String((t.function as Json | undefined)?.name));
  return finish(str(body.model), system, messages, tools);
}

/** Reads a request body of `format` into its provider-independent view. */
export function viewRequest(format: WireFormat | null, body: unknown, path: string): RequestView {
  const json = isObject(body) ? body : {};
  switch (format) {
    case 'anthropic':
      return anthropicView(json, path);
    case 'openai-chat':
      return chatView(json);
    case 'openai-responses':
      return responsesView(json);
    case 'gemini':
      return geminiView(json, path);
    case 'ollama':
      return ollamaView(json);
    case 'bedrock':
      return bedrockView(json, path);
    case null:
      return finish(str(json.model), [], [], []);
  }
}
