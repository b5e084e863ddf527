import type {
  AdapterCapabilities,
  Message,
  ProviderAdapter,
  RouteTraceEntry,
  RoutingDecisionRecord,
  RoutingPolicy,
  ToolDefinition,
} from '@yourtool/core';

/** What the router needs to know about one turn. */
export interface RouteInput {
  session_id?: string | null;
  /** The whole history, the new user message included. */
  messages: readonly Message[];
  tools?: readonly ToolDefinition[];
  system_prompt?: string | null;
  output_schema?: Record<string, unknown> | null;
  max_output_tokens: number;
  /** The turn asks for extended thinking. */
  thinking?: boolean;
  /** Per-message override (`@model` in the message). */
  override?: string | null;
  /** The session's sticky choice (`/model`). */
  sticky?: string | null;
  /** A tier the turn asks for. */
  tier?: string | null;
  /** A planner's delegation request: a model of this tier that accepts delegated work. */
  delegate?: { tier: string } | null;
  /** The session's workspace path. */
  workspace_path?: string | null;
  /**
   * Let routing choose when the explicit choice (`override` or `sticky`) cannot be honoured,
   * instead of throwing {@link ChoiceUnavailableError} (decision 0091).
   */
  fallthrough?: boolean;
}

/** What {@link Router.checkSwap} reads: the history and what the turns ask of a model. */
export type SwapInput = Omit<
  RouteInput,
  'override' | 'sticky' | 'tier' | 'delegate' | 'workspace_path' | 'fallthrough'
>;

/** A pluggable recommendation from past patterns, with a confidence in [0, 1]. */
export type PatternRecommender = (
  input: RouteInput,
) => { model: string; confidence: number; reason?: string } | null;

/** The outcome of routing one turn. */
export interface RouteDecision {
  /** Canonical id of the chosen model. */
  model: string;
  adapter: ProviderAdapter;
  capabilities: AdapterCapabilities;
  /** The chain step that chose it. */
  policy: RoutingPolicy;
  /** The compact record stored on the assistant message. */
  record: RoutingDecisionRecord;
  /** Every candidate considered, in order, with why it was taken or passed over. */
  trace: RouteTraceEntry[];
  /** The chosen adapter's input estimate for this history. */
  estimated_input_tokens: number;
  /** Whether this call is the probe of a model or provider coming back. */
  probe: boolean;
}
