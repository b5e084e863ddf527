import { InvalidRequestError } from '@yourtool/core';
import { expect } from 'vitest';
import { collectCheckedStream } from '../assertions.js';
import { EXPECTED } from '../catalog.js';
import type { ScenarioKit } from '../kit.js';

/** A key no adapter's per-call options schema knows. */
const UNKNOWN_KEY = 'conformance_unknown_option';

/**
 * Per-call options (`providerOptions[adapter.name]`), the contract each adapter's own option
 * tests used to check with its own keys: an unknown key fails the call, naming it, before
 * anything is sent.
 */
export function registerCallOptionScenarios(kit: ScenarioKit): void {
  kit.scenario(
    'provider-options-unknown-key',
    () => unknownCallOption(kit),
    15_000,
    kit.features.callOptions === 'checked'
      ? undefined
      : 'the adapter declares no per-call options (features.callOptions)',
  );
}

async function unknownCallOption(kit: ScenarioKit): Promise<void> {
  const { setup, request, user } = kit;
  const s = setup('provider-options-unknown-key');
  const options = { providerOptions: { [s.adapter.name]: { [UNKNOWN_KEY]: true } } };
  const messages = [user(s, EXPECTED.text.prompt)];
  const error = await s.adapter.complete(request({ messages }), options).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, 'an unknown per-call option is an InvalidRequestError').toBeInstanceOf(
    InvalidRequestError,
  );
  const message = String((error as Error).message);
  expect(message, 'the error names where the option was').toContain(
    `providerOptions.${s.adapter.name}`,
  );
  expect(message, 'the error names the unknown key').toContain(`unknown option "${UNKNOWN_KEY}"`);
  expect((error as InvalidRequestError).retryable, 'a bad option is not retried').toBe(false);
  const streamed = await collectCheckedStream(
    s.adapter.stream(request({ messages, stream: true }), options),
  );
  expect(streamed.error, 'stream() refuses it the same way').toBeInstanceOf(InvalidRequestError);
  expect(kit.server().requests, 'nothing reaches the provider').toHaveLength(0);
}
