import type {
  Content,
  FunctionDeclaration,
  GenerateContentConfig,
  Part,
  SafetySetting,
  ThinkingConfig,
  ThinkingLevel,
} from '@google/genai';
import {
  type CanonicalRequest,
  checkToolInputSchema,
  type DroppedBlock,
  type HistoryRepair,
  type ImageBlock,
  InvalidRequestError,
  type Logger,
  type Message,
  parseModelId,
  prepareHistory,
  silentLogger,
  type ToolIdMap,
  type ToolIdRules,
  type ToolResultBlock,
} from '@yourtool/core';
import { type GeminiModelInfo, type GeminiThinkingLevel, geminiModelInfo } from '../models.js';
import {
  countThoughtSignatures,
  GOOGLE,
  readThoughtSignatures,
  SKIP_THOUGHT_SIGNATURE_VALIDATOR,
} from './signatures.js';

export { GOOGLE, SKIP_THOUGHT_SIGNATURE_VALIDATOR } from './signatures.js';

/**
 * Rules for the function call ids the adapter sends. Gemini's ids are optional; the adapter
 * always sends one (the canonical id, which conforms) so results match their calls exactly.
 */
export const GOOGLE_TOOL_ID_RULES: ToolIdRules = { pattern: /^[a-zA-Z0-9_-]+$/, maxLength: 64 };

/**
 * Sent as the first user turn when a history starts with a model turn (Gemini expects the
 * conversation to open with the user).
 */
export const CONTINUATION_TEXT = '(The conversation continues.)';

/**
 * How thinking is requested (per call through `providerOptions.google.thinking`, or as a
 * default): `'on'` lets the model choose (a dynamic budget, or the model's default level),
 * `'off'` turns it off where the model allows it, a `budget_tokens` (Gemini 2.5) or a `level`
 * (Gemini 3) sets it. Thought summaries are asked for whenever thinking is on.
 */
export type GoogleThinkingOption =
  | 'on'
  | 'off'
  | { budget_tokens: number }
  | { level: GeminiThinkingLevel };

/** Google-specific options of one request. */
export interface GoogleRequestOptions {
  /** Wire model name, when it differs from the name in the canonical id. */
  wireName?: string;
  /** Thinking; the model's own default unless asked for. */
  thinking?: GoogleThinkingOption;
  /** Safety settings sent as they are (`safetySettings`). */
  safetySettings?: SafetySetting[];
}

/** What the request codec needs besides the request. */
export interface ToGeminiContext {
  toolIdMap: ToolIdMap;
  logger?: Logger;
  options?: GoogleRequestOptions;
  /** Model facts; looked up from the wire name when omitted. */
  model?: GeminiModelInfo;
}

/** `generateContent` parameters for the SDK (`ai.models.generateContent(params)`). */
export interface GeminiRequest {
  model: string;
  contents: Content[];
  config: GenerateContentConfig;
}

/** The parameters for a request, and what was changed to make them valid. */
export interface GeminiRequestEncoding {
  params: GeminiRequest;
  dropped: DroppedBlock[];
  repairs: HistoryRepair[];
  /** Function calls sent with {@link SKIP_THOUGHT_SIGNATURE_VALIDATOR}, by canonical id. */
  substitutedSignatures: string[];
}

function encodeImage(image: ImageBlock): Part {
  if (image.source.kind === 'url') {
    return { fileData: { fileUri: image.source.data, mimeType: image.media_type } };
  }
  return { inlineData: { mimeType: image.media_type, data: image.source.data } };
}

function textOf(result: ToolResultBlock): string {
  return result.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
}

/** What {@link encodeGeminiContents} needs to know about the target. */
export interface GeminiContentsContext {
  toolIdMap: ToolIdMap;
  /** Canonical id of the target model: signatures go back only to the model that made them. */
  targetModel?: string;
  /** Whether the target refuses function calls without a signature (Gemini 3). */
  requiresFunctionCallSignatures?: boolean;
  logger?: Logger;
  /** Receives the canonical ids of calls sent with the validator-skip signature. */
  substituted?: string[];
}

/**
 * Turns prepared canonical messages into Gemini contents: USER → `user`, ASSISTANT → `model`,
 * each TOOL result → a `functionResponse` part (`response.output`, or `response.error` when
 * `is_error`) in a `user` turn, followed by the result's images as parts of the same turn.
 * Consecutive same-role turns merge. Thought signatures go back on the parts they arrived on,
 * to the model that produced them only (decision 0112).
 */
export function encodeGeminiContents(
  messages: readonly Message[],
  context: GeminiContentsContext,
): Content[] {
  const logger = context.logger ?? silentLogger;
  const toolNames = new Map<string, string>();
  const providerId = (canonicalId: string) =>
    context.toolIdMap.toProviderId(GOOGLE, canonicalId, GOOGLE_TOOL_ID_RULES);
  const turns: Array<{ role: 'user' | 'model'; parts: Part[] }> = [];
  const push = (role: 'user' | 'model', parts: Part[]) => {
    if (parts.length === 0) return;
    const last = turns.at(-1);
    if (last && last.role === role) last.parts.push(...parts);
    else turns.push({ role, parts });
  };

  for (const message of messages) {
    switch (message.role) {
      case 'system':
        break;
      case 'user':
        push(
          'user',
          message.content.flatMap((block): Part[] => {
            if (block.type === 'text') return [{ text: block.text }];
            if (block.type === 'image') return [encodeImage(block)];
            return [];
          }),
        );
        break;
      case 'tool':
        for (const block of message.content) {
          if (block.type !== 'tool_result') continue;
          const text = textOf(block);
          push('user', [
            {
              functionResponse: {
                id: providerId(block.tool_use_id),
                name: toolNames.get(block.tool_use_id) ?? 'unknown_tool',
                response: block.is_error ? { error: text } : { output: text },
              },
            },
            ...block.content.flatMap((inner) =>
              inner.type === 'image' ? [encodeImage(inner)] : [],
            ),
          ]);
        }
        break;
      case 'assistant': {
        const sameModel =
          context.targetModel === undefined || message.metadata.model === context.targetModel;
        const signatures = sameModel ? readThoughtSignatures(message) : { text: {}, tool_use: {} };
        if (!sameModel) {
          const count = countThoughtSignatures(message);
          if (count > 0) {
            logger.warn(
              {
                event: 'thought_signature_dropped',
                adapter: GOOGLE,
                session_id: message.session_id,
                message_id: message.id,
                count,
                reason: `signatures from ${message.metadata.model ?? 'an unknown model'} are only valid for the model that produced them`,
              },
              `dropped ${count} thought signature(s) from ${message.metadata.model ?? 'an unknown model'}: they go back only to the model that produced them`,
            );
          }
        }
        let textIndex = 0;
        const parts: Part[] = [];
        let firstCall: { part: Part; id: string } | undefined;
        for (const block of message.content) {
          switch (block.type) {
            case 'thinking':
              parts.push({
                text: block.text,
                thought: true,
                ...(block.signature ? { thoughtSignature: block.signature } : {}),
              });
              break;
            case 'redacted_thinking':
              parts.push({ text: '', thought: true, thoughtSignature: block.data });
              break;
            case 'text': {
              const signature = signatures.text[String(textIndex)];
              textIndex += 1;
              parts.push({
                text: block.text,
                ...(signature ? { thoughtSignature: signature } : {}),
              });
              break;
            }
            case 'tool_use': {
              toolNames.set(block.id, block.name);
              const signature = signatures.tool_use[block.id];
              const part: Part = {
                functionCall: { id: providerId(block.id), name: block.name, args: block.input },
                ...(signature ? { thoughtSignature: signature } : {}),
              };
              if (!firstCall) firstCall = { part, id: block.id };
              parts.push(part);
              break;
            }
            default:
              break;
          }
        }
        if (
          firstCall &&
          !firstCall.part.thoughtSignature &&
          context.requiresFunctionCallSignatures
        ) {
          // Gemini 3 refuses a step whose first function call has no signature; a call made
          // elsewhere has none that could be valid, so Google's documented skip value goes
          // in its place (parallel calls: only the first call of a step carries one).
          firstCall.part.thoughtSignature = SKIP_THOUGHT_SIGNATURE_VALIDATOR;
          context.substituted?.push(firstCall.id);
          logger.warn(
            {
              event: 'thought_signature_substituted',
              adapter: GOOGLE,
              session_id: message.session_id,
              message_id: message.id,
              tool_use_id: firstCall.id,
              reason: `the function call has no signature from ${context.targetModel ?? 'this model'}`,
            },
            `function call ${firstCall.id} has no thought signature from ${context.targetModel ?? 'this model'} (made by ${message.metadata.model ?? 'an unknown model'}); sent with Google's validator-skip signature`,
          );
        }
        push('model', parts);
        break;
      }
    }
  }
  return turns;
}

const LEVEL_ORDER: readonly GeminiThinkingLevel[] = ['minimal', 'low', 'medium', 'high'];
const LEVEL_BUDGETS: Record<GeminiThinkingLevel, number> = {
  minimal: 0,
  low: 1024,
  medium: 8192,
  high: 24_576,
};

const wireLevel = (level: GeminiThinkingLevel) => level.toUpperCase() as ThinkingLevel;

/**
 * The `thinkingConfig` for a requested thinking option on a model, or null to send none.
 * Adjustments the model forces (a level it lacks, a budget out of range, thinking it cannot
 * turn off) are reported through `warn`.
 */
export function geminiThinkingConfig(
  wanted: GoogleThinkingOption,
  info: GeminiModelInfo,
  wireName: string,
  warn: (reason: string) => void,
): ThinkingConfig | null {
  const control = info.thinking;
  if (control.kind === 'none') {
    if (wanted !== 'off') warn(`${wireName} does not think; thinking was not requested`);
    return null;
  }
  if (control.kind === 'budget') {
    if (wanted === 'off') {
      if (control.canDisable) return { thinkingBudget: 0 };
      warn(`${wireName} cannot turn thinking off; using its smallest budget (${control.min})`);
      return { thinkingBudget: control.min };
    }
    if (wanted === 'on') return { thinkingBudget: -1, includeThoughts: true };
    let budget: number;
    if ('level' in wanted) {
      budget = LEVEL_BUDGETS[wanted.level];
      warn(
        `${wireName} takes a thinking budget, not a level; level ${wanted.level} → ${budget} tokens`,
      );
    } else {
      budget = wanted.budget_tokens;
    }
    if (budget === 0 && control.canDisable) return { thinkingBudget: 0 };
    const clamped = Math.min(control.max, Math.max(control.min, Math.round(budget)));
    if (clamped !== budget)
      warn(
        `thinking budget ${budget} is outside ${control.min}..${control.max} for ${wireName}; using ${clamped}`,
      );
    return { thinkingBudget: clamped, includeThoughts: true };
  }
  const levels = control.levels;
  if (wanted === 'off') {
    const lowest = levels[0] ?? 'low';
    warn(`${wireName} cannot turn thinking off; using its lowest level (${lowest})`);
    return { thinkingLevel: wireLevel(lowest) };
  }
  if (wanted === 'on') return { includeThoughts: true };
  let level: GeminiThinkingLevel;
  if ('budget_tokens' in wanted) {
    const budget = wanted.budget_tokens;
    level = budget <= 0 ? 'minimal' : budget <= 1024 ? 'low' : budget <= 8192 ? 'medium' : 'high';
    warn(`${wireName} takes a thinking level, not a budget; ${budget} tokens → level ${level}`);
  } else {
    level = wanted.level;
  }
  if (!levels.includes(level)) {
    const rank = LEVEL_ORDER.indexOf(level);
    const next = levels.find((l) => LEVEL_ORDER.indexOf(l) >= rank) ?? levels.at(-1) ?? 'high';
    warn(`${wireName} has no thinking level ${level}; using ${next}`);
    level = next;
  }
  return { thinkingLevel: wireLevel(level), includeThoughts: true };
}

/**
 * Encodes a canonical request as `generateContent` parameters: system prompt and SYSTEM
 * messages hoisted into `systemInstruction`, history normalized by core's `prepareHistory`
 * (thinking back only to the model that produced it, unanswered tool uses repaired, nothing
 * empty), contents with thought signatures ({@link encodeGeminiContents}), function
 * declarations (`parametersJsonSchema`, the JSON-Schema subset checked), `maxOutputTokens`,
 * `stopSequences`, `temperature`, structured output (`responseJsonSchema`) and thinking.
 */
export function toGeminiRequest(
  request: CanonicalRequest,
  context: ToGeminiContext,
): GeminiRequestEncoding {
  const logger = context.logger ?? silentLogger;
  const options = context.options ?? {};
  const wireName = options.wireName ?? parseModelId(request.model).name;
  const info = context.model ?? geminiModelInfo(wireName);
  const caps = info.capabilities;
  const warn = (event: string, reason: string, extra: Record<string, unknown> = {}) =>
    logger.warn({ event, adapter: GOOGLE, request_id: request.request_id, ...extra }, reason);

  const prepared = prepareHistory(
    request.messages,
    { adapter: GOOGLE, model: request.model, capabilities: caps },
    { system_prompt: request.system_prompt ?? null, logger },
  );
  const substituted: string[] = [];
  const contents = encodeGeminiContents(prepared.messages, {
    toolIdMap: context.toolIdMap,
    targetModel: request.model,
    requiresFunctionCallSignatures: info.requiresFunctionCallSignatures,
    logger,
    substituted,
  });
  if (contents[0]?.role === 'model') {
    contents.unshift({ role: 'user', parts: [{ text: CONTINUATION_TEXT }] });
    const first = prepared.messages[0];
    const repair: HistoryRepair = {
      kind: 'turn_inserted',
      session_id: first?.session_id ?? '',
      message_id: first?.id ?? '',
      block_type: 'message',
      detail: 'the history starts with a model turn; added a user turn before it',
    };
    prepared.repairs.push(repair);
    warn('history_repaired', repair.detail, { ...repair, reason: repair.detail });
  }

  const config: GenerateContentConfig = { maxOutputTokens: request.max_output_tokens };
  if (prepared.system !== null) config.systemInstruction = { parts: [{ text: prepared.system }] };
  if (request.stop_sequences.length > 0) config.stopSequences = [...request.stop_sequences];
  if (request.temperature !== null && request.temperature !== undefined) {
    config.temperature = request.temperature;
  }
  if (request.tools.length > 0) {
    const declarations = request.tools.map((tool): FunctionDeclaration => {
      const issues = checkToolInputSchema(tool.input_schema);
      if (issues.length > 0) {
        throw new InvalidRequestError(
          `tool "${tool.name}": its input_schema is outside the JSON-Schema subset: ${issues
            .map((i) => `${i.path}: ${i.message}`)
            .join('; ')}`,
          { provider: GOOGLE, request_id: request.request_id, retryable: false },
        );
      }
      return {
        name: tool.name,
        description: tool.description,
        parametersJsonSchema: tool.input_schema,
      };
    });
    config.tools = [{ functionDeclarations: declarations }];
  }
  if (request.output_schema) {
    config.responseMimeType = 'application/json';
    config.responseJsonSchema = request.output_schema;
  }
  if (options.thinking !== undefined) {
    const thinking = geminiThinkingConfig(options.thinking, info, wireName, (reason) =>
      warn('thinking_adjusted', reason),
    );
    if (thinking) config.thinkingConfig = thinking;
  }
  if (options.safetySettings && options.safetySettings.length > 0) {
    config.safetySettings = options.safetySettings;
  }

  return {
    params: { model: wireName, contents, config },
    dropped: prepared.dropped,
    repairs: prepared.repairs,
    substitutedSignatures: substituted,
  };
}
