import type {
  Content,
  FunctionDeclaration,
  GenerateContentConfig,
  SafetySetting,
  ThinkingConfig,
  ThinkingLevel,
} from '@google/genai';
import {
  type CanonicalRequest,
  checkToolInputSchema,
  InvalidRequestError,
  type Logger,
  parseModelId,
  silentLogger,
  type ToolIdMap,
} from '@yourtool/core';
import {
  type DroppedBlock,
  type HistoryMemo,
  type HistoryRepair,
  noteLeadingUserTurn,
  prepareHistory,
} from '@yourtool/core/adapter';
import { type GeminiModelInfo, type GeminiThinkingLevel, geminiModelInfo } from '../models.js';
import { encodeGeminiContentsJson } from './contents.js';
import { projectGeminiResponseSchema } from './response-schema.js';
import { GOOGLE } from './signatures.js';
import { geminiToolConfig } from './tool-choice.js';
import { googleToolNamer } from './tool-names.js';
import { concatBytes, geminiContentJson, geminiPartsJson, utf8 } from './wire-json.js';
import type { GeminiWireMemory } from './wire-memory.js';

export {
  encodeGeminiContents,
  type GeminiContentsContext,
  GOOGLE_TOOL_ID_RULES,
} from './contents.js';
export { GOOGLE, SKIP_THOUGHT_SIGNATURE_VALIDATOR } from './signatures.js';

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
  /**
   * Whether function calls and responses carry `id` (default true). False for Vertex AI, which
   * refused the field; calls and results then pair by order and name (decision 0170).
   */
  functionCallIds?: boolean;
}

/** What the request codec needs besides the request. */
export interface ToGeminiContext {
  toolIdMap: ToolIdMap;
  logger?: Logger;
  options?: GoogleRequestOptions;
  /** Model facts; looked up from the wire name when omitted. */
  model?: GeminiModelInfo;
  /** The adapter's `HistoryMemo` for `prepareHistory` (decision 0165); none: prepared afresh. */
  historyMemo?: HistoryMemo;
  /**
   * The adapter's `GeminiWireMemory` (decision 0194): sealed messages' forms are remembered in
   * it and the JSON of `contents` recorded for the transport. None: encoded afresh.
   */
  wireMemory?: GeminiWireMemory;
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
 * empty), contents with thought signatures and Gemini-safe tool names
 * ({@link encodeGeminiContents}; each rename a `tool_name_mapped` WARN), function
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
    context.historyMemo,
  );
  const substituted: string[] = [];
  const toolName = googleToolNamer(logger, request.request_id);
  const memory = context.wireMemory;
  const encoded = encodeGeminiContentsJson(prepared.messages, {
    toolIdMap: context.toolIdMap,
    targetModel: request.model,
    requiresFunctionCallSignatures: info.requiresFunctionCallSignatures,
    multimodalFunctionResponses: info.multimodalFunctionResponses === true,
    logger,
    substituted,
    originalMessages: request.messages,
    toolName,
    ...(options.functionCallIds === false ? { functionCallIds: false } : {}),
    ...(memory ? { wireMemory: memory } : {}),
  });
  const { contents } = encoded;
  let contentsJson = encoded.json;
  if (contents[0]?.role === 'model') {
    const opening = { role: 'user', parts: [{ text: CONTINUATION_TEXT }] };
    contents.unshift(opening);
    if (contentsJson !== null) {
      const json = geminiContentJson(opening.role, geminiPartsJson(opening.parts));
      contentsJson = concatBytes([utf8(`[${json},`), contentsJson.subarray(1)]);
    }
    noteLeadingUserTurn(prepared, warn, 'model');
  }
  if (memory && contentsJson !== null) memory.markContents(contents, contentsJson);

  const config: GenerateContentConfig = { maxOutputTokens: request.max_output_tokens };
  if (prepared.system !== null) config.systemInstruction = { parts: [{ text: prepared.system }] };
  if (request.stop_sequences.length > 0) config.stopSequences = [...request.stop_sequences];
  if (request.temperature !== null && request.temperature !== undefined) {
    config.temperature = request.temperature;
  }
  if (request.tools.length > 0) {
    config.tools = [{ functionDeclarations: geminiDeclarations(request, toolName) }];
    const toolConfig = geminiToolConfig(request.tool_choice, toolName);
    if (toolConfig) config.toolConfig = toolConfig;
  }
  if (request.output_schema) {
    config.responseMimeType = 'application/json';
    config.responseJsonSchema = geminiResponseSchema(request.output_schema, warn);
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

/** Function declarations, each tool's input schema checked against the JSON-Schema subset. */
function geminiDeclarations(
  request: CanonicalRequest,
  toolName: (name: string) => string,
): FunctionDeclaration[] {
  return request.tools.map((tool): FunctionDeclaration => {
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
      name: toolName(tool.name),
      description: tool.description,
      parametersJsonSchema: tool.input_schema,
    };
  });
}

/** The output schema in Gemini's subset; each constraint left out is named in a WARN. */
function geminiResponseSchema(
  schema: Record<string, unknown>,
  warn: (event: string, reason: string, extra?: Record<string, unknown>) => void,
): Record<string, unknown> {
  const projected = projectGeminiResponseSchema(schema);
  if (projected.dropped.length > 0) {
    warn(
      'structured_output_projected',
      `Gemini's response schema subset refuses some constraints; they were left out of the schema sent and are checked on the reply: ${projected.dropped
        .map((d) => `${d.path} ${d.keyword}`)
        .join(', ')}`,
      { dropped: projected.dropped },
    );
  }
  return projected.schema;
}
