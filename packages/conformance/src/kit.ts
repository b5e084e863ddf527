import type {
  AdapterCapabilities,
  CanonicalRequestInput,
  ContentBlock,
  MemoryLogger,
  Message,
  MessageMetadata,
  ProviderAdapter,
  ToolDefinition,
  ToolIdRules,
} from '@yourtool/core';
import type { ToolNameRules } from '@yourtool/core/adapter';
import type { ScenarioName } from './catalog.js';
import type { ConformanceFixtures } from './fixtures.js';
import type { AdapterConformanceOptions, WireInspector } from './inspector.js';
import type { LoopbackServer, ScriptedResponse } from './server.js';

/** The adapter features the scenarios branch on, with the suite's defaults filled in. */
export interface ConformanceFeatures {
  signedThinking: boolean;
  redactedThinking: boolean;
  temperature: 'sent' | 'dropped';
  wholeToolCalls: boolean;
  urlImages: 'sent' | 'dropped';
  stopSequenceHit: 'reported' | 'unreported';
  stopSequences: 'sent' | 'emulated';
  interleavedToolFragments: boolean;
  typedContentParts: boolean;
  refusal: 'reported' | 'none';
  toolNameWarnings: 'logged' | 'unlogged';
  callOptions: 'checked' | 'none';
  configOptions: { known: string } | 'none';
  toolChoice: 'forced' | 'downgraded';
}

/** A fresh adapter for one scenario, its logger and the session id its messages carry. */
export interface Setup {
  adapter: ProviderAdapter;
  logger: MemoryLogger;
  session_id: string;
}

/** How {@link ScenarioKit.setup} queues the fixture and configures the adapter. */
export interface SetupOptions {
  maxRetries?: number;
  /** Serve this scenario's fixture instead of the scenario's own. */
  fixtureOf?: ScenarioName;
  /** How many times to queue the fixture. Default 1. */
  times?: number;
  /** Replaces the fixture (e.g. one derived from another scenario's). */
  responses?: ScriptedResponse[];
  timeoutSeconds?: number;
  idleTimeoutSeconds?: number;
  /** Config options to build the adapter with (`ConformanceContext.options`). */
  configOptions?: Record<string, unknown>;
}

/** A canonical request without the parts the kit fills in (id, model, a default output limit). */
export type RequestInput = Omit<
  CanonicalRequestInput,
  'request_id' | 'model' | 'max_output_tokens'
> & {
  max_output_tokens?: number;
};

/** The session a message belongs to: a {@link Setup}, or anything else carrying its id. */
export type SessionRef = Pick<Setup, 'session_id'>;

/** What the suite knows about the adapter under test before registering anything. */
export interface KitFacts {
  /** The adapter's name, as in test names and log lines. */
  name: string;
  /** The canonical model id under test. */
  model: string;
  /** Its provider key (`anthropic`, `openai`, ...). */
  provider: string;
  /** Reads facts out of the provider's request body. */
  wire: WireInspector;
  features: ConformanceFeatures;
  capabilities: AdapterCapabilities;
  /** Whether the provider has tool call ids on the wire. */
  wireToolIds: boolean;
  /** Whether the provider requires user and assistant turns to alternate. */
  alternatingRoles: boolean | undefined;
  toolIdRules: ToolIdRules;
  toolNameRules: ToolNameRules;
  /** The adapter's recorded fixtures, by scenario. */
  fixtures: ConformanceFixtures;
  codec: AdapterConformanceOptions['codec'];
  live: AdapterConformanceOptions['live'];
  /** The tool definitions the scenarios declare. */
  tools: Record<'read_file' | 'get_time' | 'render_chart', ToolDefinition>;
}

/**
 * Everything a scenario group needs from the suite, built once per `describeAdapterConformance`
 * call: what the adapter declared about itself, registration, set-up, request and message
 * builders, and the loopback server.
 */
export interface ScenarioKit extends KitFacts {
  /**
   * Registers a scenario, or skips it with its reason (`unsupported`: why the provider's wire
   * format cannot express it).
   */
  scenario(
    name: ScenarioName,
    run: () => Promise<void>,
    timeoutMs?: number,
    unsupported?: string,
  ): void;
  /** Queues a scenario's fixture (times over) and builds a fresh adapter. */
  setup(scenario: ScenarioName, options?: SetupOptions): Setup;
  /** A canonical request for the model under test, with a fresh request id. */
  request(partial: RequestInput): CanonicalRequestInput;
  /** The body of the request the adapter sent (`index`: which one, the last by default). */
  body(index?: number): unknown;
  /** The loopback server of the suite; call it inside a test, once the server has started. */
  server(): LoopbackServer;
  /** Closes the adapter after the current test. */
  closeAfterTest(adapter: ProviderAdapter): void;
  /** Fails when the API key shows up in the error, the logs or the recorded headers. */
  expectNoSecret(s: Setup, error: unknown): void;

  user(s: SessionRef, content: string | ContentBlock[]): Message;
  system(s: SessionRef, text: string): Message;
  /** An assistant message as a session stores it, from `from` (the model under test by default). */
  assistant(
    s: SessionRef,
    content: ContentBlock[],
    from?: string,
    metadata?: Partial<MessageMetadata>,
  ): Message;
  toolResult(
    s: SessionRef,
    tool_use_id: string,
    content: ContentBlock[],
    is_error?: boolean,
  ): Message;
}
