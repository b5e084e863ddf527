import type { Logger, Message, ToolIdMap } from '@yourtool/core';
import type { GeminiWireMemory } from './wire-memory.js';

/** What `encodeGeminiContents` needs to know about the target. */
export interface GeminiContentsContext {
  toolIdMap: ToolIdMap;
  /** Canonical id of the target model: signatures go back only to the model that made them. */
  targetModel?: string;
  /** Whether the target refuses function calls without a signature (Gemini 3). */
  requiresFunctionCallSignatures?: boolean;
  /**
   * Whether the target takes images nested in `functionResponse.parts` (multimodal function
   * responses, Gemini 3). Default false: a tool result's images go after the turn's function
   * responses.
   */
  multimodalFunctionResponses?: boolean;
  logger?: Logger;
  /** Receives the canonical ids of calls sent with the validator-skip signature. */
  substituted?: string[];
  /**
   * The request's messages as they were before core's `prepareHistory` (by id). Text signatures
   * are kept by position among a message's text blocks as they were stored, blank ones
   * included, and a signed blank text part that `prepareHistory` removed is sent again, so each
   * signature goes back on the part it came with. Default: the messages given.
   */
  originalMessages?: readonly Message[];
  /** The wire name of a canonical tool name; default core's `wireToolName` under Gemini's rule. */
  toolName?: (name: string) => string;
  /**
   * Whether `functionCall` and `functionResponse` carry `id`. Default true (the Gemini API);
   * false for Vertex AI, whose v1 schema had no such field and which refused it with 400
   * ("Unknown name \"id\"") into 2026: calls and results then pair by order and name
   * (decision 0170).
   */
  functionCallIds?: boolean;
  /**
   * The adapter's memory of sealed messages' forms (decision 0194); none: every message is
   * encoded afresh, to the same contents.
   */
  wireMemory?: GeminiWireMemory;
}

/** The wire names of a request's calls seen so far, by canonical id. */
export interface CallNames {
  /** The wire name the call `id` went out with, if one was encoded before. */
  get(id: string): string | undefined;
  /** Records the wire name of the call `id` (a later one replaces it). */
  set(id: string, name: string): void;
}

/** What encoding one message needs besides the message. */
export interface TurnEncoder {
  logger: Logger;
  context: GeminiContentsContext;
  /** The `id` a call or result goes out with: its provider id, or none where ids are not sent. */
  wireId: (canonicalId: string) => { id?: string };
  toolName: (name: string) => string;
  /** Wire name of each tool use encoded so far, by canonical id (for its `functionResponse`). */
  callNames: CallNames;
  /** The message being encoded: the calls it makes and the call names its results read. */
  calls: Array<[string, string]>;
  answers: Array<[string, string]>;
  /** WARNs logged so far (a message whose encoding logs one is encoded again each request). */
  warned: number;
}
