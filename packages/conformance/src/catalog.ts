import { BROKEN_STREAM_SCENARIOS } from './catalog-broken-streams.js';
import { EXPECTED } from './expected.js';
import type { ScenarioDescription, ScenarioName } from './scenario-description.js';

export { CONFORMANCE_API_KEY, EXPECTED, TEST_IMAGE_URL, TEST_PNG_BASE64 } from './expected.js';
export type { ScenarioDescription, ScenarioName } from './scenario-description.js';

/** The whole catalog, in the order the suite runs it. */
export const SCENARIOS: readonly ScenarioDescription[] = [
  {
    name: 'text',
    checks: 'a plain text reply through complete(): content, stop_reason end_turn, usage',
    fixture: `a JSON response with the text "${EXPECTED.text.reply}", stop end_turn, usage 12 in / 9 out`,
  },
  {
    name: 'text-stream',
    checks:
      'the same reply streamed: several text.delta events, invariants, usage equal to complete()',
    fixture: 'a stream of the same reply split into at least two text deltas, same usage',
  },
  {
    name: 'multi-turn',
    checks: "a history holding the adapter's own earlier reply reaches the wire in order",
    fixture: `a JSON response with the text "${EXPECTED.multiTurn.reply}", usage 41 / 14`,
  },
  {
    name: 'system-prompt',
    checks: 'system_prompt and SYSTEM messages are hoisted and joined with a blank line',
    fixture: `a JSON response with the text "${EXPECTED.system.reply}", usage 30 / 3`,
  },
  {
    name: 'sampling',
    checks: 'stop sequences, temperature and max_output_tokens reach the wire; stop_sequence maps',
    fixture: `a JSON response with the text "${EXPECTED.sampling.reply}" stopped by the stop sequence END, usage 19 / 27 (with features.stopSequences "emulated": the text goes on past END and the adapter cuts it)`,
  },
  {
    name: 'tool-call',
    checks: 'a single tool call through complete(): canonical tu_ id linked in the ToolIdMap',
    fixture: `a JSON response with text "${EXPECTED.toolCall.text}" then a read_file call with {"path":"README.md"}, stop tool use, usage 380 / 52`,
  },
  {
    name: 'tool-call-stream',
    checks:
      'the same tool call streamed: raw partial_json fragments, tool.use_end with parsed input',
    fixture:
      'the same reply streamed, the tool input split into at least two fragments that do not parse alone (a provider that sends tool calls whole, features.wholeToolCalls: the call in one piece)',
  },
  {
    name: 'parallel-tool-calls',
    checks: 'two tool calls in one streamed turn, each started and ended in order',
    fixture:
      'a stream with two read_file calls, {"path":"README.md"} then {"path":"LICENSE"}, no text, usage 390 / 88',
    requires: 'supports_parallel_tool_calls',
  },
  {
    name: 'tool-call-no-args',
    checks: 'a streamed tool call without arguments yields input {}',
    fixture: 'a stream with one get_time call whose input is empty, usage 300 / 31',
  },
  {
    name: 'tool-result-error',
    checks: 'a tool result with is_error reaches the wire as an error, answering the right call',
    fixture: `a JSON response with the text "${EXPECTED.toolResultError.reply}", usage 420 / 11`,
  },
  {
    name: 'tool-result-image',
    checks: 'a tool result holding text and an image reaches the wire with both',
    fixture: `a JSON response with the text "${EXPECTED.toolResultImage.reply}", usage 1200 / 8`,
    requires: 'supports_images',
  },
  {
    name: 'images',
    checks: 'a base64 image and a URL image in a user message reach the wire',
    fixture: `a JSON response with the text "${EXPECTED.images.reply}", usage 1500 / 6`,
    requires: 'supports_images',
  },
  {
    name: 'thinking',
    checks: 'thinking (with signature) and redacted thinking come back as canonical blocks',
    fixture: `a JSON response: thinking "${EXPECTED.thinking.thinking}" (signed "${EXPECTED.thinking.signature}" if the provider signs), redacted thinking "${EXPECTED.thinking.redacted}" (if the provider has it), then text "${EXPECTED.thinking.reply}", usage 45 / 61`,
    requires: 'supports_thinking',
  },
  {
    name: 'thinking-stream',
    checks: 'the same streamed: thinking.delta events, the signature on the last one',
    fixture: 'the same reply streamed, thinking in at least two deltas',
    requires: 'supports_thinking',
  },
  {
    name: 'thinking-replay',
    checks: 'thinking from the same model goes back with its signature intact',
    fixture: `a JSON response with the text "${EXPECTED.replyAfterHistory.reply}", usage 500 / 3`,
    requires: 'supports_thinking',
  },
  {
    name: 'foreign-history',
    checks:
      'a history produced on another provider yields a valid request: no foreign signatures, conforming tool ids, results answer calls, no empty content, valid role order',
    fixture: `a JSON response with the text "${EXPECTED.replyAfterHistory.reply}", usage 500 / 3`,
  },
  {
    name: 'unanswered-tool-use',
    checks: 'a tool use with no result in history gets a result on the wire, with a WARN',
    fixture: `a JSON response with the text "${EXPECTED.replyAfterHistory.reply}", usage 500 / 3`,
  },
  {
    name: 'structured-output',
    checks: 'output_schema reaches the wire as the provider’s structured-output parameter',
    fixture: `a JSON response with the text ${EXPECTED.structured.reply}, usage 60 / 14`,
    requires: 'supports_structured_output',
  },
  {
    name: 'usage-cached',
    checks: 'cached-token usage maps to cached_input_tokens (input_tokens excludes cache reads)',
    fixture: `a JSON response with the text "${EXPECTED.usageCached.reply}", usage 150 uncached in, 1024 cache read, 0 cache write, 42 out`,
  },
  {
    name: 'usage-cached-stream',
    checks: 'the same streamed: message.complete.usage equals the non-streamed usage',
    fixture: 'the same reply streamed with the same usage',
  },
  ...(
    [
      ['rate_limit', 'a 429 rate-limit error body'],
      ['auth', 'a 401 authentication error body'],
      ['server_error', 'a 500 server error body'],
      ['network', 'a dropped connection ({"hangup": true}) or a 408'],
      [
        'context_overflow',
        'the provider’s context-window-exceeded error (status and body as it sends it)',
      ],
      ['invalid_request', 'a 400 invalid request error body'],
      [
        'other',
        'a response that is neither a reply nor a provider error (a 302 from a captive portal)',
      ],
    ] as const
  ).map(
    ([errorClass, fixture]): ScenarioDescription => ({
      name: `error-${errorClass}` as ScenarioName,
      checks: `a recorded failure maps to error class ${errorClass}, raised after exactly one request, without the API key in it`,
      fixture,
    }),
  ),
  {
    name: 'error-malformed-reply',
    checks:
      'a 200 reply whose JSON body is cut inside a string maps to server_error (not network, whatever the parser says), after exactly one request',
    fixture: 'a 200 application/json body cut mid-string (the suite supplies one)',
  },
  {
    name: 'error-network-eof',
    checks:
      'a Connection: close reply cut short by a clean close (undici HPE_INVALID_EOF_STATE) is a network failure',
    fixture: null,
  },

  {
    name: 'retry-after',
    checks: 'a rate limit with a 0.1 s retry hint is retried after exactly 100 ms, then succeeds',
    fixture:
      'a 429 with a 0.1 s retry hint (retry-after: 0.1 or retry-after-ms: 100), then the text reply',
  },
  {
    name: 'overloaded-then-success',
    checks: 'an overloaded provider is retried with a transient class, then succeeds',
    fixture: 'the provider’s overloaded error (as it sends it), then the text reply',
  },
  {
    name: 'retries-exhausted',
    checks:
      'with max_retries 2, three server errors raise a retryable ServerError after 3 requests',
    fixture: null,
  },
  {
    name: 'auth-not-retried',
    checks: 'an auth error is raised after exactly one request even with retries allowed',
    fixture: null,
  },
  ...BROKEN_STREAM_SCENARIOS,
  {
    name: 'tool-name-in-history',
    checks:
      'tool uses in a history named outside the provider\'s rule ("fs.read", a 84-character MCP-style name) go out under provider-safe, distinct names',
    fixture: null,
  },
  {
    name: 'tool-name-derived',
    checks:
      'history tool uses named outside the provider\'s rule go out as core\'s wireToolName derives them (one tool_name_mapped WARN per name with features.toolNameWarnings "logged"), and a reply calling a derived name comes back under the canonical one',
    fixture: null,
  },
  {
    name: 'tool-name-derived-stream',
    checks:
      'the same streamed: the call of a derived name starts and completes under the canonical name',
    fixture: null,
  },
  {
    name: 'tool-name-fits',
    checks: "a history tool name that fits the provider's rule goes out as it is, without a WARN",
    fixture: null,
  },
  {
    name: 'capability-honesty',
    checks: 'a block the target cannot take is dropped with a WARN and never sent',
    fixture: `a JSON response with the text "${EXPECTED.replyAfterHistory.reply}", usage 500 / 3`,
  },
  {
    name: 'codec-round-trip',
    checks: 'generated tool inputs and text survive canonical → wire → canonical (fast-check)',
    fixture: null,
  },
  {
    name: 'empty-reply-length',
    handRecorded: true,
    checks:
      'a reply with no text that stopped at the output limit (a reasoning model that spent it all thinking) is returned, not refused: no text, stop max_tokens, usage',
    fixture: `a JSON response with empty content (empty text, or no parts) and the provider's length stop, usage 40 in / 256 out`,
  },
  {
    name: 'tool-name-outside-rule',
    handRecorded: true,
    checks: `a tool call named "${EXPECTED.foreignToolName.tool}" (outside the canonical rule) comes back with that exact name and its input, not dropped or renamed`,
    fixture: `a JSON response with one ${EXPECTED.foreignToolName.tool} call, {"path":"README.md"}, usage 380 / 21`,
  },
  {
    name: 'interleaved-tool-fragments',
    handRecorded: true,
    checks:
      'two streamed tool calls whose argument fragments interleave: each input complete, one tool.use_end each, indexes never decrease',
    fixture:
      'a stream with two read_file calls: call 0 opens with a partial fragment, call 1 opens and completes, then call 0 gets its last fragment; inputs {"path":"README.md"} and {"path":"LICENSE"}, usage 390 / 88 (features.interleavedToolFragments)',
  },
  {
    name: 'typed-content-parts',
    handRecorded: true,
    checks:
      'a reply whose content is an array of typed parts (thinking, text) is read part by part: unsigned thinking, then the text',
    fixture: `a JSON response whose message content is [{"type":"thinking","thinking":[{"type":"text","text":"${EXPECTED.typedParts.thinking}"}]},{"type":"text","text":"${EXPECTED.typedParts.reply}"}], usage 16 / 30 (features.typedContentParts)`,
  },
  {
    name: 'typed-content-parts-stream',
    handRecorded: true,
    checks: 'the same typed parts streamed as content arrays in the deltas',
    fixture: 'the same reply streamed, each delta.content an array of typed parts',
  },
  {
    name: 'refusal',
    handRecorded: true,
    checks:
      "the provider's refusal maps to stop_reason refusal; its explanation, when sent, is the reply text and response.refusal",
    fixture: `a JSON response refusing (OpenAI: the message's refusal field "${EXPECTED.refusal.reply}"; Anthropic: stop_reason refusal with that text; Gemini: a SAFETY finish), usage 25 / 8`,
  },
  {
    name: 'served-model',
    handRecorded: true,
    checks:
      'when the reply names another model than the one requested, response.model stays the requested id and served_model is "<provider>:<the reported name>"',
    fixture: `the text fixture, the reply naming model "${EXPECTED.servedModel.name}"`,
  },
  {
    name: 'served-model-stream',
    handRecorded: true,
    checks: 'the same through stream(): message.complete carries served_model',
    fixture: `the text-stream fixture, the reply naming model "${EXPECTED.servedModel.name}"`,
  },
  {
    name: 'tool-name-outside-rule-stream',
    checks: `a streamed tool call named "${EXPECTED.foreignToolName.tool}" (outside the canonical rule) comes back with that exact name, its input and an allocated tu_ id`,
    fixture: null,
  },
  {
    name: 'provider-options-unknown-key',
    checks:
      'an unknown key in the per-call options (providerOptions[adapter name]) fails complete() and stream() with a non-retryable InvalidRequestError naming it, before any request (features.callOptions "checked")',
    fixture: null,
  },
  {
    name: 'config-options-unknown-key',
    checks:
      'an unknown key in the config options (config.options) makes the constructor throw an AdapterOptionError naming it; a misspelt or camelCase known option is told the nearest known one (features.configOptions)',
    fixture: null,
  },
  {
    name: 'stop-sequences-emulated-stream',
    checks:
      'with features.stopSequences "emulated": a stop sequence inside the streamed reply stays off the wire, no text from it on is streamed, and message.complete ends there with stop_sequence',
    fixture: null,
  },
  {
    name: 'structured-object',
    checks:
      "core's completeObject through the adapter with native structured output: the schema reaches the wire, the reply comes back as the parsed, validated object",
    fixture: null,
    requires: 'supports_structured_output',
  },
  {
    name: 'structured-object-invalid',
    checks:
      'a native reply that breaks the schema (population above its maximum) rejects with OutputValidationError naming $.population and the rule maximum, not cut',
    fixture: null,
    requires: 'supports_structured_output',
  },
  {
    name: 'structured-object-cut',
    checks:
      'a native reply stopped at max_tokens rejects with OutputValidationError, cut true and stop_reason max_tokens',
    fixture:
      'optional: a JSON response whose text is the start of the structured reply (`{"city":"Paris","popul`) with the provider\'s length stop; without one, the empty-reply-length fixture is used',
    requires: 'supports_structured_output',
    handRecorded: true,
  },
  {
    name: 'structured-object-refusal',
    checks:
      "a refusal in answer to a request for an object rejects with OutputValidationError reporting the refusal (the refusal fixture's explanation)",
    fixture: null,
    requires: 'supports_structured_output',
  },
  {
    name: 'structured-tool',
    checks:
      'the forced-tool fallback: the schema goes out as a tool with tool_choice naming it (features.toolChoice "downgraded": auto, with a tool_choice_downgraded WARN), and the call\'s input comes back as the object',
    fixture: null,
    requires: 'supports_tools',
  },
  {
    name: 'structured-tool-invalid',
    checks:
      'a forced-tool reply whose input breaks the schema (a path not matching its pattern) rejects with OutputValidationError naming $.path and the rule pattern',
    fixture: null,
    requires: 'supports_tools',
  },
  {
    name: 'structured-tool-missing',
    checks:
      'a reply that answers in text instead of calling the output tool rejects with OutputValidationError, rule tool_call',
    fixture: null,
    requires: 'supports_tools',
  },
  {
    name: 'tool-choice',
    checks:
      'tool_choice auto, none, required and a named tool reach the wire as the provider\'s tool choice (features.toolChoice "downgraded": forced ones go as auto with a tool_choice_downgraded WARN; none may offer no tools)',
    fixture: null,
    requires: 'supports_tools',
  },
];

/** Looks up a scenario's description. */
export function describeScenario(name: ScenarioName): ScenarioDescription {
  const found = SCENARIOS.find((s) => s.name === name);
  if (!found) throw new Error(`unknown conformance scenario "${name}"`);
  return found;
}
