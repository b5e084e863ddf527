import type {
  AdapterCapabilities,
  ContentBlock,
  Logger,
  MemoryLogger,
  ProviderAdapter,
  ToolChoice,
  ToolIdMap,
  ToolIdRules,
} from '@yourtool/core';
import type { ToolNameRules } from '@yourtool/core/adapter';
import type { ScenarioName } from './catalog.js';
import type { ConformanceFixtures } from './fixtures.js';

/** A tool call found in a recorded wire request. */
export interface WireToolCall {
  /** The provider-side id (`''` for providers without tool call ids). */
  id: string;
  name: string;
  input: unknown;
}

/** A tool result found in a recorded wire request. */
export interface WireToolResult {
  /** The provider-side id of the call it answers (`''` for providers without ids). */
  id: string;
  /** Its text, concatenated. */
  text: string;
  /** Whether the wire marks it as an error (natively, or the adapter's documented convention). */
  isError: boolean;
  /**
   * The name of the call it answers, on wire formats whose results carry one (Gemini's
   * `functionResponse.name`, Ollama's `tool_name`); leave it out otherwise.
   */
  name?: string;
}

/**
 * Reads provider-independent facts out of a recorded wire request body, so the suite can
 * assert the same thing about every provider. Each adapter package supplies one for its
 * provider's request shape.
 */
export interface WireInspector {
  /** The system text the request carries (hoisted parameter or leading system message), or null. */
  systemText(body: unknown): string | null;
  /** Roles of the conversation messages in order, without the system message. */
  roles(body: unknown): string[];
  /** Plain text of the conversation messages (user and assistant), in order. */
  texts(body: unknown): string[];
  maxOutputTokens(body: unknown): number | undefined;
  stopSequences(body: unknown): string[] | undefined;
  temperature(body: unknown): number | undefined;
  /** Names of the tools the request declares. */
  toolNames(body: unknown): string[];
  toolCalls(body: unknown): WireToolCall[];
  toolResults(body: unknown): WireToolResult[];
  /** Images anywhere in the conversation, tool results included. */
  imageCount(body: unknown): number;
  /** The structured-output JSON schema the request carries, if any. */
  outputSchema(body: unknown): unknown;
  /**
   * The tool choice the request expresses, in canonical terms (`auto`, `none`, `required`,
   * `{ type: 'tool', name }` with the wire name), `undefined` when it sets none. A request that
   * offers no tools may be read as `none`. Optional: without it the `tool-choice` and
   * `structured-tool` scenarios skip, saying why.
   */
  toolChoice?(body: unknown): ToolChoice | undefined;
  /** Whether any message or block has empty content (text "" or no content at all). */
  hasEmptyContent(body: unknown): boolean;
  /**
   * Whether the request asked for a stream. `path` is the request's path, for providers whose
   * path says it (Bedrock's `/converse-stream`, Gemini's `:streamGenerateContent`).
   */
  stream(body: unknown, path: string): boolean;
}

/** What `createAdapter` receives: where the loopback server is and how to configure for it. */
export interface ConformanceContext {
  /** The loopback server's base URL; pass it as the adapter's `base_url`. */
  baseUrl: string;
  /** Pass as `api_key`. It must never show up in errors or logs. */
  apiKey: string;
  /** Pass as `max_retries`. */
  maxRetries: number;
  /** Pass as the adapter's logger; the suite inspects its WARN records. */
  logger: MemoryLogger & Logger;
  /** Pass as the adapter's retry tuning (short backoff so tests stay fast). */
  retry: { baseDelayMs: number; maxDelayMs: number };
  /**
   * Pass as `timeout_seconds`: the longest one attempt may take, headers to last byte. The
   * timeout scenarios make it short; the others make it long enough never to matter.
   */
  timeoutSeconds: number;
  /** Pass as `idle_timeout_seconds`: the longest silence between two stream chunks. */
  idleTimeoutSeconds: number;
  /**
   * Config options a scenario sets (`config-options-unknown-key`, with `features.configOptions`
   * declared): merge them into the config's `options`, over your own. Absent otherwise, so a
   * factory that ignores it keeps working for every other scenario.
   */
  options?: Record<string, unknown>;
}

/** Options of `describeAdapterConformance`. */
export interface AdapterConformanceOptions {
  /** Adapter name, used in test names. */
  name: string;
  /** Canonical id of the model the scenarios run against. */
  model: string;
  /** Builds a fresh adapter for each scenario, configured from the context. */
  createAdapter: (context: ConformanceContext) => ProviderAdapter;
  /** Recorded wire responses by scenario (see `loadFixtureDirectory`). */
  fixtures: ConformanceFixtures;
  /** Reads facts out of the provider's request body. */
  wire: WireInspector;
  /** The provider's tool call id rules (e.g. core's `ANTHROPIC_TOOL_ID_RULES`). */
  toolIdRules: ToolIdRules;
  /**
   * What the provider accepts as a tool name (core's `STRICT_TOOL_NAME_RULES` by default;
   * `GEMINI_TOOL_NAME_RULES` for Gemini). Tool uses in a history whose names break it must be
   * sent under a name derived with core's `wireToolName`.
   */
  toolNameRules?: ToolNameRules;
  /** Whether the provider has tool call ids on the wire. Default true. */
  wireToolIds?: boolean;
  /** Whether the provider requires user and assistant turns to alternate, starting with user. */
  alternatingRoles?: boolean;
  /** What the provider's thinking output carries. */
  features?: {
    /** Thinking blocks carry a signature. */
    signedThinking?: boolean;
    /** The provider returns redacted thinking. */
    redactedThinking?: boolean;
    /** `dropped`: the provider refuses temperature; the adapter leaves it out with a WARN. */
    temperature?: 'sent' | 'dropped';
    /**
     * The provider sends each tool call whole (Ollama), so the adapter emits `tool.use_start`,
     * one `tool.use_input_delta` holding the complete input JSON, and `tool.use_end`. The
     * streamed tool scenarios then expect that single fragment instead of raw partial ones,
     * and a cancellation after it to keep the complete input. Default false.
     */
    wholeToolCalls?: boolean;
    /**
     * `dropped`: the provider takes base64 images only (Ollama); the adapter leaves URL images
     * out with a WARN (`block_dropped`, block type `image`). Default `sent`.
     */
    urlImages?: 'sent' | 'dropped';
    /**
     * `unreported`: the provider does not say whether a stop sequence ended the reply (Ollama
     * answers `stop` for both and cuts the stop text), so the adapter reports `end_turn`.
     * Default `reported`: a stop sequence hit must map to `stop_sequence`.
     */
    stopSequenceHit?: 'reported' | 'unreported';
    /**
     * `emulated`: the model refuses stop sequences on the wire (OpenAI's GPT-5 family), so the
     * adapter leaves them out and cuts the reply at the first one itself, reporting
     * `stop_sequence`. The scenario's fixture then holds the text past the stop sequence, and
     * `stop-sequences-emulated-stream` checks the same cut through stream(). Default `sent`.
     */
    stopSequences?: 'sent' | 'emulated';
    /**
     * The wire format can interleave the argument fragments of parallel tool calls (Chat
     * Completions: fragments are keyed by call index). Runs `interleaved-tool-fragments`.
     * Default false (the scenario is skipped, saying why).
     */
    interleavedToolFragments?: boolean;
    /**
     * The wire format can carry the assistant's content as an array of typed parts (Chat
     * Completions servers such as Mistral's Magistral). Runs the `typed-content-parts`
     * scenarios. Default false.
     */
    typedContentParts?: boolean;
    /**
     * `none`: the provider has no way to say it refused (Ollama); `refusal` is skipped.
     * Default `reported`.
     */
    refusal?: 'reported' | 'none';
    /**
     * `logged`: the adapter logs a `tool_name_mapped` WARN (core's `createToolNamer`) once per
     * history tool name it had to rename; the `tool-name-derived` scenario then checks them.
     * Default `unlogged`: the renamed names are checked, the WARNs are not.
     */
    toolNameWarnings?: 'logged' | 'unlogged';
    /**
     * `checked`: the adapter checks its per-call options (`providerOptions[adapter.name]`, core's
     * `parseCallOptions`), so an unknown key fails the call before anything is sent; runs
     * `provider-options-unknown-key`. Default `none`: the adapter takes no per-call options and
     * the scenario is skipped, saying why.
     */
    callOptions?: 'checked' | 'none';
    /**
     * `{ known }`: the adapter checks `config.options` at construction (core's `parseOptions`),
     * so an unknown key throws an `AdapterOptionError` naming it and the nearest known option;
     * `known` is one option it takes (`prompt_caching`). Runs `config-options-unknown-key`, which
     * builds the adapter with `context.options`: `createAdapter` must merge them into the
     * config's `options`. Default `none`: the scenario is skipped, saying why.
     */
    configOptions?: { known: string } | 'none';
    /**
     * `downgraded`: the provider cannot force a tool call (Ollama), so the adapter sends a
     * forced `tool_choice` as `auto` with a `tool_choice_downgraded` WARN (core's
     * `reportToolChoiceDowngrade`). Default `forced`.
     */
    toolChoice?: 'forced' | 'downgraded';
  };
  /**
   * The adapter's codec, for the round-trip property test: encode assistant content into the
   * wire request shape, then decode the wire assistant message as a response, through the
   * given tool id map.
   */
  codec: {
    roundTrip(content: ContentBlock[], toolIdMap: ToolIdMap): ContentBlock[];
  };
  /** Scenarios to skip, each with the reason printed in the output. */
  skip?: Partial<Record<ScenarioName, string>>;
  /**
   * Live mode: when `env` names a set environment variable, the basic scenarios also run
   * against the real provider through this adapter factory. Skipped (with a printed reason)
   * otherwise.
   */
  live?: {
    env: string;
    createAdapter: (apiKey: string) => ProviderAdapter;
    model?: string;
  };
  /** Capabilities to gate on, if the adapter's own `capabilitiesFor(model)` should not be used. */
  capabilities?: AdapterCapabilities;
}
