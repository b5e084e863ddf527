import {
  type AdapterCapabilities,
  type CanonicalRequest,
  type ContentBlock,
  type Logger,
  type Message,
  newToolUseId,
  type StopReason,
  type StreamEvent,
  type TokenUsage,
  type ToolIdMap,
  type ToolIdRules,
} from '@yourtool/core';
import {
  canonicalToolName,
  type HistoryMemo,
  prepareHistory,
  STRICT_TOOL_NAME_RULES,
  type StreamBuilder,
  wireToolName,
} from '@yourtool/core/adapter';

/** The provider key, and the prefix of its canonical model ids (`acme:small`). */
export const ACME = 'acme';

/** Tool call ids the API accepts. */
export const ACME_TOOL_ID_RULES: ToolIdRules = { pattern: /^[a-zA-Z0-9_-]+$/, maxLength: 64 };

/** How a failed tool result is marked on the wire (the API has no error flag). */
export const ACME_TOOL_ERROR_PREFIX = '[tool error] ';

/** A tool call on the wire. */
export interface AcmeToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** A message on the wire. */
export interface AcmeMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  tool_calls?: AcmeToolCall[];
  tool_call_id?: string;
}

/** The request body of `POST /chat/completions`. */
export interface AcmeRequestBody {
  model: string;
  messages: AcmeMessage[];
  max_tokens: number;
  stream: boolean;
  tools?: Array<{
    type: 'function';
    function: { name: string; description: string; parameters: Record<string, unknown> };
  }>;
  stop?: string[];
  temperature?: number;
}

/** The API's token counts. */
export interface AcmeUsage {
  prompt_tokens: number;
  completion_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number };
}

/** A whole reply. */
export interface AcmeCompletion {
  id: string;
  /** The model that answered. */
  model?: string;
  choices: Array<{
    message: { content: string | null; tool_calls?: AcmeToolCall[] };
    finish_reason: string;
  }>;
  usage?: AcmeUsage;
}

/** One streamed chunk (the `data` of an SSE event). */
export interface AcmeChunk {
  id: string;
  /** The model that answered. */
  model?: string;
  choices: Array<{
    delta: {
      content?: string | null;
      tool_calls?: Array<{
        index: number;
        id?: string;
        function?: { name?: string; arguments?: string };
      }>;
    };
    finish_reason: string | null;
  }>;
  usage?: AcmeUsage;
}

/** Everything the request encoder needs besides the request. */
export interface AcmeEncodeContext {
  wireName: string;
  capabilities: AdapterCapabilities;
  toolIdMap: ToolIdMap;
  logger: Logger;
  /** The adapter's memory of prepared histories (`call.historyMemo`); none: prepared afresh. */
  historyMemo?: HistoryMemo;
}

const wireId = (toolIdMap: ToolIdMap, canonicalId: string) =>
  toolIdMap.toProviderId(ACME, canonicalId, ACME_TOOL_ID_RULES);

/** An assistant message on the wire, or null when nothing of it can be sent. */
export function encodeAssistant(message: Message, toolIdMap: ToolIdMap): AcmeMessage | null {
  const texts: string[] = [];
  const calls: AcmeToolCall[] = [];
  for (const block of message.content) {
    if (block.type === 'text') texts.push(block.text);
    else if (block.type === 'tool_use') {
      calls.push({
        id: wireId(toolIdMap, block.id),
        type: 'function',
        // a name the API refuses (an imported `fs.read`) goes out derived, and comes back canonical
        function: {
          name: wireToolName(block.name, STRICT_TOOL_NAME_RULES),
          arguments: JSON.stringify(block.input),
        },
      });
    }
  }
  if (texts.length === 0 && calls.length === 0) return null;
  return {
    role: 'assistant',
    content: texts.length === 0 ? null : texts.join('\n\n'),
    ...(calls.length > 0 ? { tool_calls: calls } : {}),
  };
}

/** Canonical request → wire body. Cross-provider rules come from core's `prepareHistory`. */
export function encodeRequest(
  request: CanonicalRequest,
  context: AcmeEncodeContext,
): AcmeRequestBody {
  const prepared = prepareHistory(
    request.messages,
    { adapter: ACME, model: request.model, capabilities: context.capabilities },
    {
      system_prompt: request.system_prompt ?? null,
      logger: context.logger,
      keepThinking: () => false,
    },
    context.historyMemo,
  );
  const messages: AcmeMessage[] = [];
  if (prepared.system !== null) messages.push({ role: 'system', content: prepared.system });
  for (const message of prepared.messages) {
    if (message.role === 'user') {
      const text = message.content
        .flatMap((block) => (block.type === 'text' ? [block.text] : []))
        .join('\n\n');
      if (text !== '') messages.push({ role: 'user', content: text });
    } else if (message.role === 'assistant') {
      const encoded = encodeAssistant(message, context.toolIdMap);
      if (encoded) messages.push(encoded);
    } else if (message.role === 'tool') {
      for (const block of message.content) {
        if (block.type !== 'tool_result') continue;
        const text =
          block.content
            .flatMap((inner) => (inner.type === 'text' ? [inner.text] : []))
            .join('\n') || '(no output)';
        messages.push({
          role: 'tool',
          tool_call_id: wireId(context.toolIdMap, block.tool_use_id),
          content: block.is_error ? `${ACME_TOOL_ERROR_PREFIX}${text}` : text,
        });
      }
    }
  }
  const body: AcmeRequestBody = {
    model: context.wireName,
    messages,
    max_tokens: request.max_output_tokens,
    stream: request.stream,
  };
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.input_schema },
    }));
  }
  if (request.stop_sequences.length > 0) body.stop = [...request.stop_sequences];
  if (request.temperature !== null && request.temperature !== undefined) {
    body.temperature = request.temperature;
  }
  return body;
}

/**
 * The API's finish reason → canonical. It says `stop` for a natural end and for a stop
 * sequence alike, so a stop sequence hit is reported as `end_turn` (never guessed).
 */
export function stopReasonOf(finishReason: string): StopReason {
  switch (finishReason) {
    case 'tool_calls':
      return 'tool_use';
    case 'length':
    case 'model_length':
      return 'max_tokens';
    case 'error':
      return 'error';
    default:
      return 'end_turn';
  }
}

/** The API's usage → canonical (`input_tokens` without cache reads). */
export function usageOf(usage: AcmeUsage): TokenUsage {
  const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
  return {
    input_tokens: usage.prompt_tokens - cached,
    output_tokens: usage.completion_tokens,
    cached_input_tokens: cached,
    cache_creation_input_tokens: 0,
  };
}

/** A wire assistant message → canonical blocks. */
export function decodeMessage(
  message: { content: string | null; tool_calls?: AcmeToolCall[] },
  toolIdMap: ToolIdMap,
  requestNames: Iterable<string> = [],
): ContentBlock[] {
  const content: ContentBlock[] = [];
  if (message.content) content.push({ type: 'text', text: message.content });
  for (const call of message.tool_calls ?? []) {
    const input: unknown =
      call.function.arguments.trim() === '' ? {} : JSON.parse(call.function.arguments);
    content.push({
      type: 'tool_use',
      id: call.id ? toolIdMap.toCanonical(ACME, call.id) : newToolUseId(),
      name: canonicalToolName(call.function.name, requestNames, STRICT_TOOL_NAME_RULES),
      input: (input ?? {}) as Record<string, unknown>,
    });
  }
  return content;
}

/** Canonical → wire → canonical, for the conformance suite's round-trip property test. */
export function roundTripAcmeContent(
  content: ContentBlock[],
  toolIdMap: ToolIdMap,
): ContentBlock[] {
  const wire = encodeAssistant({ content } as Message, toolIdMap);
  const sent = JSON.parse(JSON.stringify(wire ?? { content: null })) as AcmeMessage;
  return decodeMessage(sent, toolIdMap);
}

/** Maps one streamed chunk through core's StreamBuilder. Keeps per-stream state. */
export function createChunkMapper(
  toolIdMap: ToolIdMap,
  requestNames: Iterable<string> = [],
  modelProvider = ACME,
) {
  const started = new Set<number>();
  const names = [...requestNames];
  return (chunk: AcmeChunk, builder: StreamBuilder): StreamEvent[] => {
    const events: StreamEvent[] = [];
    if (chunk.model) builder.servedModel(`${modelProvider}:${chunk.model}`);
    const choice = chunk.choices[0];
    const delta = choice?.delta ?? {};
    if (typeof delta.content === 'string' && delta.content !== '') {
      events.push(...builder.text('text', delta.content));
    }
    for (const call of delta.tool_calls ?? []) {
      const key = `tool:${call.index}`;
      if (!started.has(call.index)) {
        started.add(call.index);
        const id = call.id ? toolIdMap.toCanonical(ACME, call.id) : newToolUseId();
        const name = canonicalToolName(call.function?.name ?? '', names, STRICT_TOOL_NAME_RULES);
        events.push(...builder.toolStart(key, id, name));
      }
      const fragment = call.function?.arguments ?? '';
      if (fragment !== '') events.push(...builder.toolInput(key, fragment));
    }
    if (chunk.usage) builder.updateUsage(usageOf(chunk.usage));
    if (choice?.finish_reason) {
      // complete() ends the open tool uses first
      events.push(...builder.complete(stopReasonOf(choice.finish_reason), { id: chunk.id }));
    }
    return events;
  };
}
