import { describe } from 'vitest';
import { createScenarioKit, resolveKitFacts } from './create-kit.js';
import type { AdapterConformanceOptions } from './inspector.js';
import { registerCallOptionScenarios } from './scenarios/call-options.js';
import { registerCancellationScenarios } from './scenarios/cancellation.js';
import { registerConfigOptionScenarios } from './scenarios/config-options.js';
import { registerDeadlineScenarios } from './scenarios/deadlines.js';
import { registerErrorScenarios } from './scenarios/errors.js';
import { registerFidelityScenarios } from './scenarios/fidelity.js';
import { registerLiveScenario } from './scenarios/live.js';
import {
  registerCapabilityAndCodecScenarios,
  registerForeignHistoryScenario,
} from './scenarios/replay.js';
import {
  registerImageScenario,
  registerReplyScenarios,
  registerStructuredAndUsageScenarios,
} from './scenarios/replies.js';
import { registerStopSequenceScenarios } from './scenarios/stop-sequences.js';
import { registerStructuredObjectScenarios } from './scenarios/structured.js';
import { registerThinkingScenarios } from './scenarios/thinking.js';
import { registerToolNameMappingScenarios } from './scenarios/tool-name-mapping.js';
import {
  registerToolNameInHistoryScenario,
  registerToolScenarios,
  registerUnansweredToolUseScenario,
} from './scenarios/tools.js';

export { CONFORMANCE_TOOLS } from './conformance-tools.js';
export type { AdapterConformanceOptions, ConformanceContext, WireInspector } from './inspector.js';

/**
 * Registers the conformance suite for one adapter: one vitest test per scenario of the catalog,
 * each served by a loopback server through the adapter's real SDK. Scenarios the model's
 * capabilities rule out are skipped with the reason in the test name.
 */
export function describeAdapterConformance(options: AdapterConformanceOptions): void {
  const facts = resolveKitFacts(options);
  describe(`${options.name} adapter conformance (${facts.model})`, () => {
    const kit = createScenarioKit(options, facts);
    // The groups interleave: this order is the order the tests have always run and reported in.
    registerReplyScenarios(kit);
    registerToolScenarios(kit);
    registerImageScenario(kit);
    registerThinkingScenarios(kit);
    registerForeignHistoryScenario(kit);
    registerUnansweredToolUseScenario(kit);
    registerStructuredAndUsageScenarios(kit);
    registerErrorScenarios(kit);
    registerDeadlineScenarios(kit);
    registerCancellationScenarios(kit);
    registerToolNameInHistoryScenario(kit);
    registerToolNameMappingScenarios(kit);
    registerCapabilityAndCodecScenarios(kit);
    registerFidelityScenarios(kit);
    registerCallOptionScenarios(kit);
    registerConfigOptionScenarios(kit);
    registerStopSequenceScenarios(kit);
    registerStructuredObjectScenarios(kit);
    registerLiveScenario(kit);
  });
}
