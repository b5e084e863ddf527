import {
  type AdapterError,
  createMemoryLogger,
  newRequestId,
  newSessionId,
  type ProviderAdapter,
  parseModelId,
} from '@yourtool/core';
import { STRICT_TOOL_NAME_RULES } from '@yourtool/core/adapter';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { CONFORMANCE_API_KEY, describeScenario, type ScenarioName } from './catalog.js';
import { CONFORMANCE_TOOLS } from './conformance-tools.js';
import { DEFAULT_FIXTURES } from './default-fixtures.js';
import type { AdapterConformanceOptions } from './inspector.js';
import type { ConformanceFeatures, KitFacts, ScenarioKit } from './kit.js';
import { messageBuilders } from './kit-messages.js';
import { type LoopbackServer, type ScriptedResponse, startLoopbackServer } from './server.js';

/** What the kit's functions share: the suite's options and facts, its server and open adapters. */
interface SuiteState {
  options: AdapterConformanceOptions;
  facts: KitFacts;
  server(): LoopbackServer;
  opened: ProviderAdapter[];
}

/**
 * Works out what the suite knows before registering anything: the features with their defaults,
 * and the capabilities the model declares (asked of a probe adapter that never connects).
 */
export function resolveKitFacts(options: AdapterConformanceOptions): KitFacts {
  const { wire, model } = options;
  const features: ConformanceFeatures = {
    signedThinking: false,
    redactedThinking: false,
    temperature: 'sent',
    wholeToolCalls: false,
    urlImages: 'sent',
    stopSequenceHit: 'reported',
    stopSequences: 'sent',
    interleavedToolFragments: false,
    typedContentParts: false,
    refusal: 'reported',
    toolNameWarnings: 'unlogged',
    callOptions: 'none',
    configOptions: 'none',
    toolChoice: 'forced',
    ...options.features,
  };
  const probe = options.createAdapter({
    baseUrl: 'http://127.0.0.1:9',
    apiKey: CONFORMANCE_API_KEY,
    maxRetries: 0,
    logger: createMemoryLogger(),
    retry: { baseDelayMs: 1, maxDelayMs: 1 },
    timeoutSeconds: 10,
    idleTimeoutSeconds: 10,
  });
  const capabilities = options.capabilities ?? probe.capabilitiesFor(model);
  void probe.close();
  return {
    name: options.name,
    model,
    provider: parseModelId(model).provider,
    wire,
    features,
    capabilities,
    wireToolIds: options.wireToolIds ?? true,
    alternatingRoles: options.alternatingRoles,
    toolIdRules: options.toolIdRules,
    toolNameRules: options.toolNameRules ?? STRICT_TOOL_NAME_RULES,
    fixtures: options.fixtures,
    codec: options.codec,
    live: options.live,
    tools: CONFORMANCE_TOOLS,
  };
}

/**
 * Builds the kit the scenario groups register with. Call it inside the suite's `describe`: it
 * registers the hooks that start the loopback server, reset it before each test and close the
 * test's adapters after it.
 */
export function createScenarioKit(
  options: AdapterConformanceOptions,
  facts: KitFacts,
): ScenarioKit {
  let loopback: LoopbackServer | undefined;
  const state: SuiteState = {
    options,
    facts,
    server: () => {
      if (!loopback) throw new Error('the loopback server is not running (use it inside a test)');
      return loopback;
    },
    opened: [],
  };
  beforeAll(async () => {
    loopback = await startLoopbackServer();
  });
  afterAll(async () => {
    await state.server().close();
  });
  beforeEach(() => {
    state.server().reset();
  });
  afterEach(async () => {
    await Promise.all(state.opened.splice(0).map((a) => a.close()));
  });
  return {
    ...facts,
    ...messageBuilders(facts.model),
    scenario: scenarioRegistrar(state),
    setup: setupFor(state),
    request: (partial) => ({
      request_id: newRequestId(),
      model: facts.model,
      max_output_tokens: 1024,
      ...partial,
    }),
    body: bodyReader(state),
    server: state.server,
    closeAfterTest: (adapter) => {
      state.opened.push(adapter);
    },
    expectNoSecret: (s, error) => {
      const texts = [
        String((error as Error).message),
        String((error as AdapterError).provider_message),
        JSON.stringify(s.logger.records),
        JSON.stringify(state.server().requests.map((r) => r.headers)),
      ];
      for (const text of texts)
        expect(
          text,
          'the API key must never appear in errors, logs or recorded headers',
        ).not.toContain(CONFORMANCE_API_KEY);
    },
  };
}

function setupFor(state: SuiteState): ScenarioKit['setup'] {
  return (scenario, opts = {}) => {
    const server = state.server();
    const source = opts.fixtureOf ?? scenario;
    const fixture = state.options.fixtures[source] ?? DEFAULT_FIXTURES[source];
    const description = describeScenario(source);
    if (description.fixture !== null && !fixture) {
      throw new Error(
        `no fixture for scenario "${source}". Record the provider's response and add it to the fixtures ` +
          `(e.g. test/fixtures/${source}/1-response.json). It must be: ${description.fixture}`,
      );
    }
    for (let i = 0; i < (opts.times ?? 1); i++)
      server.enqueue(...(opts.responses ?? ((fixture ?? []) as ScriptedResponse[])));
    const logger = createMemoryLogger();
    const adapter = state.options.createAdapter({
      baseUrl: server.url,
      apiKey: CONFORMANCE_API_KEY,
      maxRetries: opts.maxRetries ?? 0,
      logger,
      retry: { baseDelayMs: 5, maxDelayMs: 20 },
      // long enough never to matter, short enough that a hang fails the scenario, not vitest
      timeoutSeconds: opts.timeoutSeconds ?? 10,
      idleTimeoutSeconds: opts.idleTimeoutSeconds ?? 10,
      ...(opts.configOptions ? { options: opts.configOptions } : {}),
    });
    state.opened.push(adapter);
    return { adapter, logger, session_id: newSessionId() };
  };
}

function bodyReader(state: SuiteState): ScenarioKit['body'] {
  return (index = -1) => {
    const request = state.server().requests.at(index);
    if (!request) throw new Error('the adapter sent no request to the loopback server');
    if (request.unscripted) {
      throw new Error(
        `the adapter sent more requests than the scenario scripted (${request.method} ${request.path}); ` +
          'is it retrying something it should not, or calling a second endpoint?',
      );
    }
    return request.body;
  };
}

/** Why a scenario is skipped for this adapter, if it is. */
function skipReason(state: SuiteState, name: ScenarioName): string | undefined {
  const { model, capabilities, features } = state.facts;
  const gate = describeScenario(name).requires;
  return (
    (gate && !capabilities[gate] ? `${model} declares ${gate}: false` : undefined) ??
    (name.startsWith('thinking-replay') && !features.signedThinking && !features.redactedThinking
      ? 'the provider returns no signed or redacted thinking to replay'
      : undefined)
  );
}

function scenarioRegistrar(state: SuiteState): ScenarioKit['scenario'] {
  return (name, run, timeoutMs = 15_000, unsupported) => {
    const description = describeScenario(name);
    const explicit = state.options.skip?.[name] ?? unsupported;
    const reason = explicit ?? skipReason(state, name);
    const title = `${name}: ${description.checks}`;
    if (reason) {
      console.info(`[conformance] ${state.options.name}: skipping "${name}": ${reason}`);
      it.skip(`${title} (skipped: ${reason})`, () => {});
      return;
    }
    it(
      title,
      async () => {
        await run();
        expect(
          state.server().pending(),
          `scenario "${name}" scripted more responses than the adapter requested: it stopped early or reused a response`,
        ).toBe(0);
      },
      timeoutMs,
    );
  };
}
