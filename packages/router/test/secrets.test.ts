import { inspect } from 'node:util';
import { createMemoryLogger } from '@yourtool/core';
import { describe, expect, it } from 'vitest';
import { ModelRegistry, parseRoutingConfig, Router } from '../src/index.js';
import { DeclaringAdapter, session_id, user } from './helpers.js';

/**
 * No configuration error, routing refusal or log line quotes a key, whatever field it was put in
 * (issue 24). Keys of several providers' shapes, a Mistral one without any prefix to recognise.
 */

const KEYS = {
  anthropic: 'sk-ant-api03-Zq7hX2mB9vLrT4kW8nYc1pDf6sGj3aQe5uIo0-xyzAA',
  openai: 'sk-proj-Zq7hX2mB9vLrT4kW8nYc1pDf6sGj3aQe5uIo0xyz',
  google: 'AIzaSyZq7hX2mB9vLrT4kW8nYc1pDf6sGj3aQe5u',
  mistral: 'Zq7hX2mB9vLrT4kW8nYc1pDf6sGj3aQe',
  groq: 'gsk_Zq7hX2mB9vLrT4kW8nYc1pDf6sGj3aQe5uIo0xyz',
};

const PLACEMENTS: Record<string, (key: string) => string> = {
  api_key: (k) => `{ type: openai, api_key: ${k} }`,
  api_key_env: (k) => `{ type: openai, api_key_env: ${k} }`,
  'api_key_env (block style)': (k) => `\n    type: openai\n    api_key_env: "${k}"`,
  base_url: (k) => `{ type: openai, base_url: ${k} }`,
  'base_url query': (k) => `{ type: openai, base_url: "https://api.example.test/v1?key=${k}" }`,
  extra_headers: (k) => `{ type: openai, extra_headers: { X-Custom: ${k} } }`,
  options: (k) => `{ type: openai, options: { key: ${k} } }`,
  type: (k) => `{ type: ${k} }`,
  timeout_seconds: (k) => `{ type: openai, timeout_seconds: ${k} }`,
};

/** Every text the registry, the router and the logger produce for this models.yaml. */
function everythingSaidAbout(adapterEntry: string): string[] {
  const yaml = `adapters:\n  provider: ${adapterEntry}\nmodels:\n  openai:m: { adapter: provider, wire_name: m }\n`;
  const logger = createMemoryLogger();
  const said: string[] = [];
  const record = (error: unknown) => said.push(String(error), inspect(error, { depth: 10 }));
  try {
    const registry = ModelRegistry.fromYaml(
      yaml,
      { factories: { openai: (c, r) => new DeclaringAdapter('openai', c, r) }, env: {}, logger },
      'models.yaml',
    );
    said.push(JSON.stringify(registry.models()));
    const router = new Router({
      registry,
      config: parseRoutingConfig('global_default: openai:m'),
      logger,
    });
    try {
      router.route({ session_id, messages: [user('hi')], max_output_tokens: 10 });
    } catch (error) {
      record(error);
    }
  } catch (error) {
    record(error);
  }
  said.push(JSON.stringify(logger.records));
  return said;
}

describe('a key is never quoted, whatever field it was put in', () => {
  for (const [provider, key] of Object.entries(KEYS)) {
    for (const [field, entry] of Object.entries(PLACEMENTS)) {
      it(`${provider} key in ${field}`, () => {
        const said = everythingSaidAbout(entry(key));
        expect(said.length).toBeGreaterThan(0);
        const quoting = said.filter(
          (text) => text.includes(key) || text.includes(key.slice(4, 24)),
        );
        expect(quoting.map((text) => text.slice(0, 240))).toEqual([]);
      });
    }
  }

  it('a conventional variable name is still quoted, so the message helps', () => {
    const said = everythingSaidAbout('{ type: openai, api_key_env: MISTRAL_API_KEY }');
    expect(said.join('\n')).toContain('the environment variable MISTRAL_API_KEY is not set');
  });
});
