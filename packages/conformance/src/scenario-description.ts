import type { AdapterCapabilities } from '@yourtool/core';

/** Names of every scenario in the catalog. */
export type ScenarioName =
  | 'text'
  | 'text-stream'
  | 'multi-turn'
  | 'system-prompt'
  | 'sampling'
  | 'tool-call'
  | 'tool-call-stream'
  | 'parallel-tool-calls'
  | 'tool-call-no-args'
  | 'tool-result-error'
  | 'tool-result-image'
  | 'images'
  | 'thinking'
  | 'thinking-stream'
  | 'thinking-replay'
  | 'foreign-history'
  | 'unanswered-tool-use'
  | 'structured-output'
  | 'usage-cached'
  | 'usage-cached-stream'
  | 'error-rate_limit'
  | 'error-auth'
  | 'error-server_error'
  | 'error-network'
  | 'error-context_overflow'
  | 'error-invalid_request'
  | 'error-other'
  | 'error-malformed-reply'
  | 'error-network-eof'
  | 'retry-after'
  | 'overloaded-then-success'
  | 'retries-exhausted'
  | 'auth-not-retried'
  | 'stream-error-before-first-event'
  | 'stream-error-mid-stream'
  | 'stream-empty'
  | 'timeout-complete-stall'
  | 'timeout-stream-before-first-event'
  | 'timeout-stream-idle'
  | 'cancel-mid-text'
  | 'cancel-mid-text-signal'
  | 'cancel-mid-tool-input'
  | 'cancel-mid-tool-input-signal'
  | 'cancel-in-one-read'
  | 'cancel-in-one-read-ended'
  | 'cancel-complete'
  | 'cancel-complete-signal'
  | 'already-aborted'
  | 'tool-name-in-history'
  | 'tool-name-derived'
  | 'tool-name-derived-stream'
  | 'tool-name-fits'
  | 'capability-honesty'
  | 'codec-round-trip'
  | 'empty-reply-length'
  | 'tool-name-outside-rule'
  | 'interleaved-tool-fragments'
  | 'typed-content-parts'
  | 'typed-content-parts-stream'
  | 'refusal'
  | 'served-model'
  | 'served-model-stream'
  | 'tool-name-outside-rule-stream'
  | 'provider-options-unknown-key'
  | 'config-options-unknown-key'
  | 'stop-sequences-emulated-stream'
  | 'structured-object'
  | 'structured-object-invalid'
  | 'structured-object-cut'
  | 'structured-object-refusal'
  | 'structured-tool'
  | 'structured-tool-invalid'
  | 'structured-tool-missing'
  | 'tool-choice';

/** What a scenario checks and what its fixture must contain. */
export interface ScenarioDescription {
  name: ScenarioName;
  /** What the scenario proves. */
  checks: string;
  /**
   * What the adapter's fixture for it must hold (`null`: the scenario needs no fixture of its
   * own, it reuses another one or talks to no server).
   */
  fixture: string | null;
  /** The capability the scenario needs, if any. */
  requires?: keyof AdapterCapabilities;
  /**
   * The fixture is a provider-specific edge shape (typed content parts, interleaved fragments, a
   * safety finish, a served model name) recorded by hand for each adapter, not rendered by
   * `expectedResponses` / `renderFixtures`.
   */
  handRecorded?: true;
}
