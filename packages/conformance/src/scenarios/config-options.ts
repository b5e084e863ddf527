import { AdapterOptionError } from '@yourtool/core';
import { expect } from 'vitest';
import type { ScenarioKit } from '../kit.js';

/** A key no adapter's config options schema knows, far from every real option name. */
const UNKNOWN_KEY = 'conformance_unknown_option';

/**
 * Config options (`config.options`, checked once at construction), the contract each adapter's
 * own option tests used to check with its own keys: an unknown key is an `AdapterOptionError`
 * naming it, and a misspelt (or camelCase) known option is told the nearest known one.
 */
export function registerConfigOptionScenarios(kit: ScenarioKit): void {
  kit.scenario(
    'config-options-unknown-key',
    async () => unknownConfigOption(kit),
    15_000,
    kit.features.configOptions === 'none'
      ? 'the adapter declares no checked config options (features.configOptions)'
      : undefined,
  );
}

/** `prompt_caching` → `promptCaching`. */
function camelCase(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** What building the adapter with `options` threw; fails when it built one. */
function refused(kit: ScenarioKit, options: Record<string, unknown>): AdapterOptionError {
  let thrown: unknown;
  try {
    kit.setup('config-options-unknown-key', { responses: [], configOptions: options });
  } catch (error) {
    thrown = error;
  }
  expect(
    thrown,
    `building the adapter with config options ${JSON.stringify(options)} must throw an ` +
      'AdapterOptionError (does createAdapter merge context.options into the config’s options?)',
  ).toBeInstanceOf(AdapterOptionError);
  return thrown as AdapterOptionError;
}

function unknownConfigOption(kit: ScenarioKit): void {
  if (kit.features.configOptions === 'none') return;
  const { known } = kit.features.configOptions;
  const error = refused(kit, { [UNKNOWN_KEY]: true });
  expect(error.code).toBe('invalid_adapter_option');
  expect(error.adapter, 'the error names the adapter by its provider key').toBe(kit.provider);
  expect(error.path, 'an unknown key is the fault of the options object').toBe('options');
  expect(error.reason, 'the error names the unknown key').toContain(
    `unknown option "${UNKNOWN_KEY}"`,
  );
  expect(error.message).toBe(`${kit.provider}: options: ${error.reason}`);
  const misspelt = [`${known}${known.at(-1)}`, camelCase(known)].filter((key) => key !== known);
  for (const key of misspelt) {
    expect(
      refused(kit, { [key]: true }).reason,
      `"${key}" is told the nearest known option, "${known}"`,
    ).toBe(`unknown option "${key}"; did you mean "${known}"?`);
  }
}
