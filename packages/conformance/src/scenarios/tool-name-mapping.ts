import { type Message, newToolUseId, ToolIdMap } from '@yourtool/core';
import { fitsToolNameRules, wireToolName } from '@yourtool/core/adapter';
import { type BedrockFrame, decodeBedrockFrame, encodeBedrockFrame } from '@yourtool/wire-formats';
import { expect } from 'vitest';
import { collectCheckedStream, completeEvent } from '../assertions.js';
import type { ScenarioName } from '../catalog.js';
import { DEFAULT_FIXTURES } from '../default-fixtures.js';
import type { ScenarioKit, SessionRef, Setup } from '../kit.js';
import type { ScriptedResponse } from '../server.js';

/**
 * History tool names outside every provider's rule (a slash and a space; 84 characters), so each
 * adapter must derive a wire name for both whatever its rule.
 */
const FOREIGN = ['github/create issue', `server.${'tool'.repeat(20)}`] as const;

/** The tool the conformance tools declare, whose name fits every rule. */
const FITTING = 'read_file';

/**
 * Tool names in a history (decision 0140), the contract each adapter's own tool-name tests used
 * to check with its fixtures: a name outside the provider's rule goes out as core's
 * `wireToolName` derives it, a reply calling the derived name comes back canonical (whole and
 * streamed), and a name that fits goes out as it is, without a WARN.
 */
export function registerToolNameMappingScenarios(kit: ScenarioKit): void {
  kit.scenario('tool-name-derived', () => toolNameDerived(kit));
  kit.scenario('tool-name-derived-stream', () => toolNameDerivedStream(kit));
  kit.scenario('tool-name-fits', () => toolNameFits(kit));
}

/**
 * A recorded reply with its `read_file` call renamed to `name`, as the provider would send a call
 * of that name (every wire format carries the name as plain JSON text).
 */
export function replyCalling(
  kit: ScenarioKit,
  source: ScenarioName,
  name: string,
): ScriptedResponse[] {
  const found = kit.fixtures[source] ?? DEFAULT_FIXTURES[source];
  if (!found) throw new Error(`the "${source}" fixture is needed to derive a reply from`);
  return found.map((response) =>
    response.type === 'binary-stream'
      ? { ...response, chunks: response.chunks.map((frame) => frameCalling(frame, name)) }
      : (JSON.parse(JSON.stringify(response).replaceAll(FITTING, name)) as ScriptedResponse),
  );
}

/** An event-stream frame with the call renamed in its JSON payload (other bytes kept as sent). */
function frameCalling(frame: Uint8Array, name: string): Uint8Array {
  let decoded: BedrockFrame;
  try {
    decoded = decodeBedrockFrame(frame);
  } catch {
    return frame;
  }
  const payload = JSON.parse(JSON.stringify(decoded.payload).replaceAll(FITTING, name));
  return encodeBedrockFrame({ ...decoded, payload });
}

/** A history: three tool uses named `names` (one name twice), their results, then a question. */
function history(kit: ScenarioKit, s: SessionRef, names: readonly string[]): Message[] {
  const uses = names.map((name) => ({
    type: 'tool_use' as const,
    id: newToolUseId(),
    name,
    input: { path: 'README.md' },
  }));
  const results = uses.map((use) =>
    kit.toolResult(s, use.id, [{ type: 'text', text: '# Project Foo' }]),
  );
  return [kit.user(s, 'Read it.'), kit.assistant(s, uses), ...results, kit.user(s, 'Again.')];
}

/** The names the history of {@link history} uses, and what each must be on the wire. */
function foreignNames(kit: ScenarioKit): { names: string[]; wire: string[] } {
  const names = [FOREIGN[0], FOREIGN[1], FOREIGN[0]];
  return { names, wire: names.map((name) => wireToolName(name, kit.toolNameRules)) };
}

/** The `[adapter, tool_name, wire_name]` of each `tool_name_mapped` WARN the adapter logged. */
function mappedWarnings(s: Setup): unknown[][] {
  return s.logger
    .warnings()
    .filter((w) => w.obj.event === 'tool_name_mapped')
    .map((w) => [w.obj.adapter, w.obj.tool_name, w.obj.wire_name]);
}

/** The history's tool uses and results went out under `expected`, each fitting the rule. */
function expectSentNames(kit: ScenarioKit, expected: string[]): void {
  const body = kit.body();
  const sent = kit.wire.toolCalls(body).map((c) => c.name);
  expect(
    sent,
    "each history tool use goes out under core's wireToolName(name, the provider's rule)",
  ).toEqual(expected);
  for (const name of sent) {
    expect(fitsToolNameRules(name, kit.toolNameRules), `"${name}" fits the rule`).toBe(true);
  }
  const resultNames = kit.wire.toolResults(body).flatMap((r) => (r.name ? [r.name] : []));
  if (resultNames.length > 0) {
    expect(resultNames, 'a result that names its call names it as sent').toEqual(expected);
  }
}

/** One WARN per renamed name, when the adapter declares it logs them. */
function expectMappedWarnings(kit: ScenarioKit, s: Setup, names: string[], wire: string[]) {
  if (kit.features.toolNameWarnings !== 'logged') return;
  const renamed = [...new Map(names.map((name, i) => [name, wire[i]])).entries()];
  expect(
    mappedWarnings(s),
    'one tool_name_mapped WARN per renamed name, naming the adapter',
  ).toEqual(renamed.map(([name, wireName]) => [s.adapter.name, name, wireName]));
}

async function toolNameDerived(kit: ScenarioKit): Promise<void> {
  const { names, wire } = foreignNames(kit);
  const s = kit.setup('tool-name-derived', {
    responses: replyCalling(kit, 'tool-call', wire[0] as string),
  });
  const res = await s.adapter.complete(
    kit.request({ messages: history(kit, s, names), tools: [kit.tools.read_file] }),
    { toolIdMap: new ToolIdMap() },
  );
  expect(wire[0], 'the name breaks the rule, so it is renamed').not.toBe(names[0]);
  expectSentNames(kit, wire);
  expectMappedWarnings(kit, s, names, wire);
  expect(
    res.content.find((b) => b.type === 'tool_use'),
    'a reply calling the derived name comes back under the canonical one',
  ).toMatchObject({ name: names[0] });
}

async function toolNameDerivedStream(kit: ScenarioKit): Promise<void> {
  const { names, wire } = foreignNames(kit);
  const s = kit.setup('tool-name-derived-stream', {
    responses: replyCalling(kit, 'tool-call-stream', wire[1] as string),
  });
  const { events, error } = await collectCheckedStream(
    s.adapter.stream(
      kit.request({
        messages: history(kit, s, names),
        tools: [kit.tools.read_file],
        stream: true,
      }),
      { toolIdMap: new ToolIdMap() },
    ),
  );
  expect(error).toBeUndefined();
  expectSentNames(kit, wire);
  expect(
    events.find((e) => e.type === 'tool.use_start'),
    'the streamed call of a derived name starts under the canonical one',
  ).toMatchObject({ tool_name: names[1] });
  const uses = completeEvent(events).final_content.filter((b) => b.type === 'tool_use');
  expect(uses.map((b) => b.name)).toEqual([names[1]]);
}

async function toolNameFits(kit: ScenarioKit): Promise<void> {
  const names = [FITTING, FITTING, FITTING];
  const s = kit.setup('tool-name-fits', { fixtureOf: 'tool-call' });
  const res = await s.adapter.complete(
    kit.request({ messages: history(kit, s, names), tools: [kit.tools.read_file] }),
    { toolIdMap: new ToolIdMap() },
  );
  expectSentNames(kit, names);
  expect(mappedWarnings(s), 'a name that fits is not renamed, so no WARN').toEqual([]);
  expect(res.content.find((b) => b.type === 'tool_use')).toMatchObject({ name: FITTING });
}
