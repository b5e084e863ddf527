import {
  type ContentBlock,
  newToolUseId,
  parseModelId,
  type StopReason,
  type TokenUsage,
  type ToolIdMap,
} from '@yourtool/core';
import { canonicalToolName } from '@yourtool/core/adapter';
import { OLLAMA, type OllamaWireToolCall } from './request.js';
import { OLLAMA_TOOL_NAME_RULES } from './tool-names.js';

/** The fields of a reply's `message` the adapter reads. */
export interface OllamaReplyMessage {
  role?: string;
  content?: string | null;
  thinking?: string | null;
  tool_calls?: OllamaWireToolCall[] | null;
}

/** The fields of an `/api/chat` reply (or stream chunk) the adapter reads. */
export interface OllamaChatResponseLike {
  model?: string;
  created_at?: string | Date;
  message?: OllamaReplyMessage | null;
  done?: boolean;
  /** `stop` (natural end or a stop sequence), `length`, `load`, `unload`; absent mid-stream. */
  done_reason?: string | null;
  total_duration?: number;
  load_duration?: number;
  /** Tokens in the prompt; older servers omit it when the whole prompt came from the KV cache. */
  prompt_eval_count?: number | null;
  prompt_eval_duration?: number;
  /** Tokens generated. */
  eval_count?: number | null;
  eval_duration?: number;
}

/**
 * Maps Ollama's `done_reason` to the canonical stop reason. `length` is `max_tokens`. `stop`
 * means the model ended, or a stop sequence matched: Ollama does not say which (both are
 * `stop` and the stop text is cut), so it is `end_turn`, or `tool_use` when the reply holds tool
 * calls (Ollama has no tool-call reason).
 */
export function mapOllamaDoneReason(
  reason: string | null | undefined,
  hasToolCalls: boolean,
): StopReason {
  if (reason === 'length') return 'max_tokens';
  return hasToolCalls ? 'tool_use' : 'end_turn';
}

/** How to fill in usage Ollama did not send. */
export interface OllamaUsageOptions {
  /** Estimated input tokens, used when `prompt_eval_count` is missing. */
  estimateInputTokens?: () => number;
}

/**
 * Maps Ollama's counts to canonical usage: `prompt_eval_count` → `input_tokens`, `eval_count` →
 * `output_tokens`, cache counts 0 (Ollama reuses its KV cache silently and reports no cache
 * reads; `input_tokens` is the uncached input, and all of it is billed at the same zero
 * rate). A missing `prompt_eval_count` (older servers omit it when the prompt was
 * entirely in the KV cache) is estimated and flagged `estimated: true`.
 */
export function mapOllamaUsage(
  response: Pick<OllamaChatResponseLike, 'prompt_eval_count' | 'eval_count'>,
  options: OllamaUsageOptions = {},
): TokenUsage {
  const reported = typeof response.prompt_eval_count === 'number';
  return {
    input_tokens: reported
      ? (response.prompt_eval_count as number)
      : (options.estimateInputTokens?.() ?? 0),
    output_tokens: response.eval_count ?? 0,
    cached_input_tokens: 0,
    cache_creation_input_tokens: 0,
    ...(reported ? {} : { estimated: true }),
  };
}

/** Options of the reply decoders: usage estimates, and the requested model. */
export interface OllamaDecodeOptions extends OllamaUsageOptions {
  /**
   * The requested canonical model id: its provider key and the reply's `model` make the served
   * model.
   */
  requestModel?: string;
  /**
   * The request's tool names (core's `requestToolNames`): a call naming a name derived from one
   * of them is read back as it, so the caller only ever sees canonical names.
   */
  toolNames?: ReadonlySet<string>;
}

/** A tool name from a reply, read back as canonical against the request's tool names. */
export function ollamaCanonicalToolName(
  wireName: string,
  toolNames: ReadonlySet<string> | undefined,
): string {
  return toolNames ? canonicalToolName(wireName, toolNames, OLLAMA_TOOL_NAME_RULES) : wireName;
}

/**
 * The canonical id of the model that answered: the provider key of the requested canonical id
 * (`requestModel`), then the `model` the reply names. `undefined` when either is missing.
 */
export function ollamaServedModel(
  requestModel: string | undefined,
  reported: string | null | undefined,
): string | undefined {
  if (!requestModel || !reported) return undefined;
  return `${parseModelId(requestModel).provider}:${reported}`;
}

/** Round-trip data the adapter keeps in `provider_raw` for a reply: what served it and timings. */
export function ollamaProviderRaw(response: OllamaChatResponseLike): Record<string, unknown> {
  const createdAt = response.created_at;
  return {
    ollama: {
      model: response.model ?? null,
      created_at: createdAt instanceof Date ? createdAt.toISOString() : (createdAt ?? null),
      done_reason: response.done_reason ?? null,
      total_duration_ns: response.total_duration ?? null,
      load_duration_ns: response.load_duration ?? null,
      prompt_eval_duration_ns: response.prompt_eval_duration ?? null,
      eval_duration_ns: response.eval_duration ?? null,
    },
  };
}

/**
 * The canonical id for a tool call Ollama returned. Calls come without ids on most servers: a
 * fresh `tu_<ulid>` is allocated and linked to itself in the session map (it is the id the
 * adapter sends back for that call). A server that does send an id gets it linked as usual.
 */
export function canonicalOllamaToolId(call: OllamaWireToolCall, toolIdMap: ToolIdMap): string {
  if (typeof call.id === 'string' && call.id !== '') return toolIdMap.toCanonical(OLLAMA, call.id);
  const id = newToolUseId();
  toolIdMap.set({ canonical_id: id, provider: OLLAMA, provider_id: id });
  return id;
}

/** A tool call's arguments as a JSON object (some servers send them as a JSON string). */
export function ollamaToolArguments(call: OllamaWireToolCall): Record<string, unknown> {
  const raw: unknown = call.function.arguments;
  if (typeof raw === 'string') {
    try {
      const parsed: unknown = JSON.parse(raw);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
        return parsed as Record<string, unknown>;
    } catch {
      return {};
    }
    return {};
  }
  return raw && typeof raw === 'object' && !Array.isArray(raw)
    ? (raw as Record<string, unknown>)
    : {};
}

/**
 * Decodes an assistant message: `thinking` as a thinking block without signature (Ollama does
 * not sign thinking), `content` as text, each of `tool_calls` as a tool use with a canonical id
 * (and its name read back as canonical against `toolNames`). Empty text and thinking are left
 * out.
 */
export function decodeOllamaMessage(
  message: OllamaReplyMessage | null | undefined,
  toolIdMap: ToolIdMap,
  toolNames?: ReadonlySet<string>,
): ContentBlock[] {
  const content: ContentBlock[] = [];
  if (message?.thinking) content.push({ type: 'thinking', text: message.thinking });
  if (message?.content) content.push({ type: 'text', text: message.content });
  for (const call of message?.tool_calls ?? []) {
    content.push({
      type: 'tool_use',
      id: canonicalOllamaToolId(call, toolIdMap),
      name: ollamaCanonicalToolName(call.function.name, toolNames),
      input: ollamaToolArguments(call),
    });
  }
  return content;
}

/** A decoded `/api/chat` reply. */
export interface OllamaResponseDecoding {
  content: ContentBlock[];
  stop_reason: StopReason;
  usage: TokenUsage;
  provider_raw: Record<string, unknown>;
  /** The canonical id of the model that answered (see {@link ollamaServedModel}). */
  served_model?: string;
}

/**
 * Decodes a whole (non-streamed) `/api/chat` reply. Ollama has no refusal signal and reports no
 * reasoning tokens: a refusal is an ordinary `end_turn` reply, and `reasoning_tokens` is absent.
 */
export function fromOllamaChatResponse(
  response: OllamaChatResponseLike,
  toolIdMap: ToolIdMap,
  options: OllamaDecodeOptions = {},
): OllamaResponseDecoding {
  const content = decodeOllamaMessage(response.message, toolIdMap, options.toolNames);
  const served = ollamaServedModel(options.requestModel, response.model);
  return {
    content,
    stop_reason: mapOllamaDoneReason(
      response.done_reason,
      content.some((b) => b.type === 'tool_use'),
    ),
    usage: mapOllamaUsage(response, options),
    provider_raw: ollamaProviderRaw(response),
    ...(served ? { served_model: served } : {}),
  };
}
