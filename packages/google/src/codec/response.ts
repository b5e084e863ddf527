import type { GenerateContentResponse, Part } from '@google/genai';
import {
  type ContentBlock,
  InvalidRequestError,
  type Logger,
  newToolUseId,
  parseModelId,
  type StopReason,
  type StreamEvent,
  silentLogger,
  type TokenUsage,
  type ToolIdMap,
} from '@yourtool/core';
import { canonicalToolName, StreamBuilder } from '@yourtool/core/adapter';
import {
  GEMINI_BLOCKED_FINISH_REASONS,
  GEMINI_REFUSAL_FINISH_REASONS,
  mapGeminiFinishReason,
} from './finish.js';
import type { GeminiThoughtSignatures } from './signatures.js';
import { GOOGLE } from './signatures.js';
import { GOOGLE_TOOL_NAME_RULES } from './tool-names.js';
import { mapGeminiUsage } from './usage.js';

/**
 * The canonical id of the model that answered: the provider key of the requested canonical id
 * (`requestModel`), then Gemini's `modelVersion`. `undefined` when either is missing.
 */
export function geminiServedModel(
  requestModel: string | undefined,
  modelVersion: string | null | undefined,
): string | undefined {
  if (!requestModel || !modelVersion) return undefined;
  return `${parseModelId(requestModel).provider}:${modelVersion}`;
}

/** The reply as Gemini sent it, for the options of the decoder. */
export interface GeminiDecodeOptions {
  /** Whether the request carried stop sequences (a `STOP` is then `stop_sequence`). */
  stopSequencesSent?: boolean;
  logger?: Logger;
  /** For messages and errors. */
  request_id?: string;
  /**
   * The requested canonical model id: its provider key and the reply's `modelVersion` make the
   * served model; also the stream builder's model in a non-streamed decode.
   */
  model?: string;
  /**
   * The request's tool names (core's `requestToolNames`): a function call naming a name derived
   * from one of them is read back as it, so the caller only ever sees canonical names.
   */
  toolNames?: ReadonlySet<string>;
}

/** A chunk or whole reply, as far as the decoder reads it. */
export type GeminiResponseLike = Pick<
  GenerateContentResponse,
  'candidates' | 'usageMetadata' | 'promptFeedback' | 'modelVersion' | 'responseId'
>;

/**
 * Assembles Gemini reply parts (one whole reply, or a stream's chunks in order) into canonical
 * events through core's `StreamBuilder`:
 *
 * | Gemini part | canonical |
 * |---|---|
 * | `thought: true` text | `thinking.delta`; its `thoughtSignature` on the thinking block |
 * | text | `text.delta`; a `thoughtSignature` kept in `provider_raw` by text position |
 * | `functionCall` (whole) | `tool.use_start` (name read back as canonical), one `tool.use_input_delta` (its args JSON), `tool.use_end`; signature kept by canonical id |
 * | empty text with only a signature | the signature of the text block it ends, else an empty signed thinking block |
 * | anything else (inline data, executable code) | dropped with a WARN |
 *
 * A part carrying a signature closes its block: later text starts a new block, so a signature
 * goes back on the exact part it came with. Function calls without an id get a fresh canonical
 * id, recorded in the `ToolIdMap` as their own Gemini id, so later turns send the same id back.
 */
export class GeminiReplyAssembler {
  readonly #toolIdMap: ToolIdMap;
  readonly #logger: Logger;
  readonly #options: GeminiDecodeOptions;
  #textKey = 0;
  #thinkingKey = 0;
  #toolCount = 0;
  #textBlocks = 0;
  /** The kind of block the last part went to, and whether that text block took a signature. */
  #last: 'text' | 'thinking' | 'tool' | null = null;
  #textOpen = false;
  #hasFunctionCalls = false;
  #finishReason: string | null = null;
  #finishMessage: string | null = null;
  #blockReason: string | null = null;
  #blockReasonMessage: string | null = null;
  #modelVersion: string | null = null;
  #responseId: string | null = null;
  readonly #signatures: Required<GeminiThoughtSignatures> = { text: {}, tool_use: {} };

  /** `toolIdMap`: the session's map; `options`: stop sequences sent, logger. */
  constructor(toolIdMap: ToolIdMap, options: GeminiDecodeOptions = {}) {
    this.#toolIdMap = toolIdMap;
    this.#logger = options.logger ?? silentLogger;
    this.#options = options;
  }

  /** Maps one chunk (or the whole reply); completes the message when the reply says it ended. */
  push(chunk: GeminiResponseLike, builder: StreamBuilder): StreamEvent[] {
    const events: StreamEvent[] = [];
    if (chunk.modelVersion) {
      this.#modelVersion = chunk.modelVersion;
      builder.servedModel(geminiServedModel(this.#options.model, chunk.modelVersion));
    }
    if (chunk.responseId) {
      this.#responseId = chunk.responseId;
      builder.providerResponseId(chunk.responseId);
    }
    if (chunk.usageMetadata) builder.updateUsage(mapGeminiUsage(chunk.usageMetadata));
    const candidate = chunk.candidates?.[0];
    for (const part of candidate?.content?.parts ?? []) events.push(...this.#part(part, builder));
    const blockReason = chunk.promptFeedback?.blockReason;
    if (blockReason && !candidate) {
      // Google declined the prompt itself: a refusal with no content, its billed usage kept.
      this.#blockReason = String(blockReason);
      this.#blockReasonMessage = chunk.promptFeedback?.blockReasonMessage ?? null;
      events.push(...builder.complete(this.stopReason(), this.providerRaw()));
      return events;
    }
    if (candidate?.finishReason) {
      this.#finishReason = String(candidate.finishReason);
      this.#finishMessage = candidate.finishMessage ?? null;
      if (GEMINI_BLOCKED_FINISH_REASONS.has(this.#finishReason)) this.#filtered(builder);
      events.push(...builder.complete(this.stopReason(), this.providerRaw()));
    }
    return events;
  }

  /**
   * A filter stopped the reply. A refusal finish is returned as `refusal` (empty or not); a
   * `LANGUAGE` stop before any content is an `InvalidRequestError`. A WARN says when content
   * that had arrived was cut short.
   */
  #filtered(builder: StreamBuilder): void {
    const reason = this.#finishReason ?? '';
    if (builder.content().length === 0) {
      if (!GEMINI_REFUSAL_FINISH_REASONS.has(reason))
        throw this.#blocked(reason, this.#finishMessage);
      return;
    }
    this.#logger.warn(
      {
        event: 'reply_blocked',
        adapter: GOOGLE,
        request_id: this.#options.request_id,
        finish_reason: reason,
      },
      `Gemini's filters cut the reply short (${reason}); keeping what arrived before`,
    );
  }

  /** The canonical stop reason of what was assembled so far. */
  stopReason(): StopReason {
    if (this.#blockReason !== null) return 'refusal';
    return mapGeminiFinishReason(
      this.#finishReason,
      this.#hasFunctionCalls,
      this.#options.stopSequencesSent ?? false,
    );
  }

  /** Round-trip data for `metadata.provider_raw` (the reply's signatures among it). */
  providerRaw(): Record<string, unknown> {
    const signatures: GeminiThoughtSignatures = {};
    if (Object.keys(this.#signatures.text).length > 0) signatures.text = this.#signatures.text;
    if (Object.keys(this.#signatures.tool_use).length > 0)
      signatures.tool_use = this.#signatures.tool_use;
    const blocked =
      this.#blockReason !== null ||
      (this.#finishReason !== null && GEMINI_BLOCKED_FINISH_REASONS.has(this.#finishReason));
    return {
      [GOOGLE]: {
        response_id: this.#responseId,
        model_version: this.#modelVersion,
        finish_reason: this.#finishReason,
        ...(this.#finishMessage ? { finish_message: this.#finishMessage } : {}),
        ...(this.#blockReason ? { block_reason: this.#blockReason } : {}),
        ...(this.#blockReasonMessage ? { block_reason_message: this.#blockReasonMessage } : {}),
        ...(blocked ? { blocked: true } : {}),
        ...(Object.keys(signatures).length > 0 ? { thought_signatures: signatures } : {}),
      },
    };
  }

  #blocked(reason: string, detail: string | null): InvalidRequestError {
    return new InvalidRequestError(
      `google: Gemini stopped the reply (${reason}) before any content${detail ? `: ${detail}` : ''}`,
      {
        provider: GOOGLE,
        request_id: this.#options.request_id ?? '',
        provider_message: reason,
        retryable: false,
      },
    );
  }

  #part(part: Part, builder: StreamBuilder): StreamEvent[] {
    const signature = part.thoughtSignature || undefined;
    if (part.functionCall) {
      const call = part.functionCall;
      let canonicalId: string;
      if (call.id) {
        canonicalId = this.#toolIdMap.toCanonical(GOOGLE, call.id);
      } else {
        canonicalId = newToolUseId();
        this.#toolIdMap.set({
          canonical_id: canonicalId,
          provider: GOOGLE,
          provider_id: canonicalId,
        });
      }
      this.#hasFunctionCalls = true;
      if (signature) this.#signatures.tool_use[canonicalId] = signature;
      const key = `tool-${this.#toolCount++}`;
      const args = (call.args ?? {}) as Record<string, unknown>;
      this.#last = 'tool';
      this.#textOpen = false;
      const wireName = call.name ?? 'unknown_tool';
      const toolNames = this.#options.toolNames;
      const name = toolNames
        ? canonicalToolName(wireName, toolNames, GOOGLE_TOOL_NAME_RULES)
        : wireName;
      return [
        ...builder.toolStart(key, canonicalId, name),
        ...builder.toolInput(key, JSON.stringify(args)),
        ...builder.toolEnd(key, args),
      ];
    }
    if (typeof part.text === 'string' && part.thought === true) {
      const key = `thinking-${this.#thinkingKey}`;
      const events = builder.thinking(key, part.text, signature);
      if (events.length > 0) this.#last = 'thinking';
      this.#textOpen = false;
      if (signature) this.#thinkingKey += 1;
      return events;
    }
    if (typeof part.text === 'string') {
      if (part.text === '') {
        if (!signature) return [];
        if (this.#last === 'text' && this.#textOpen) {
          this.#signatures.text[String(this.#textBlocks - 1)] = signature;
          this.#textKey += 1;
          this.#textOpen = false;
          return [];
        }
        // a signature with nothing before it to belong to: keep it as signed (empty) thinking
        const key = `thinking-${this.#thinkingKey++}`;
        this.#last = 'thinking';
        return builder.thinking(key, '', signature);
      }
      if (!(this.#last === 'text' && this.#textOpen)) this.#textBlocks += 1;
      // the same key after another block is a new block for the builder
      const events = builder.text(`text-${this.#textKey}`, part.text);
      this.#last = 'text';
      this.#textOpen = true;
      if (signature) {
        this.#signatures.text[String(this.#textBlocks - 1)] = signature;
        this.#textKey += 1;
        this.#textOpen = false;
      }
      return events;
    }
    const kind = Object.keys(part).find((k) => k !== 'thoughtSignature') ?? 'unknown';
    this.#logger.warn(
      {
        event: 'block_dropped',
        adapter: GOOGLE,
        request_id: this.#options.request_id,
        block_type: kind,
        reason: 'no canonical block for it',
      },
      `dropped a ${kind} part from the reply: the canonical format has no such block`,
    );
    return [];
  }
}

/** A decoded `generateContent` reply. */
export interface GeminiResponseDecoding {
  content: ContentBlock[];
  stop_reason: StopReason;
  usage: TokenUsage;
  provider_raw: Record<string, unknown>;
  /** The reply's `responseId`, when it has one. */
  provider_response_id?: string;
  /** The canonical id of the model that answered, when `options.model` and the reply say. */
  served_model?: string;
}

/**
 * Decodes a whole `generateContent` reply: the same assembly as a stream
 * ({@link GeminiReplyAssembler}), so both give the same blocks, signatures and ids.
 */
export function fromGeminiResponse(
  response: GeminiResponseLike,
  toolIdMap: ToolIdMap,
  options: GeminiDecodeOptions = {},
): GeminiResponseDecoding {
  const builder = new StreamBuilder({
    request_id: options.request_id ?? '',
    model: options.model ?? `${GOOGLE}:unknown`,
    provider: GOOGLE,
    ...(options.logger ? { logger: options.logger } : {}),
  });
  const assembler = new GeminiReplyAssembler(toolIdMap, options);
  builder.start();
  let events = assembler.push(response, builder);
  if (!events.some((e) => e.type === 'message.complete')) {
    events = builder.complete(assembler.stopReason(), assembler.providerRaw());
  }
  const complete = events.find((e) => e.type === 'message.complete');
  if (complete?.type !== 'message.complete') throw new Error('unreachable: no message.complete');
  return {
    content: complete.final_content,
    stop_reason: complete.stop_reason,
    usage: complete.usage,
    provider_raw: complete.provider_raw ?? assembler.providerRaw(),
    ...(complete.provider_response_id
      ? { provider_response_id: complete.provider_response_id }
      : {}),
    ...(complete.served_model ? { served_model: complete.served_model } : {}),
  };
}
