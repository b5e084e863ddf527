import { describe, expect, it } from 'vitest';
import {
  ModelRegistry,
  parseRegistryConfig,
  parseRoutingConfig,
  RouterConfigError,
} from '../src/index.js';
import { factories } from './helpers.js';

/**
 * models.yaml and routing.yaml refuse unknown fields; a misspelt one is named with the field it
 * was meant to be, found among the keys of the object it sits in (issue 35).
 */

/** The issues of the RouterConfigError `parse` throws (it must throw one). */
function issuesOf(parse: () => unknown): RouterConfigError['issues'] {
  try {
    parse();
  } catch (error) {
    expect(error).toBeInstanceOf(RouterConfigError);
    return (error as RouterConfigError).issues;
  }
  throw new Error('the document was taken');
}

describe('models.yaml: an unknown field names the nearest known one', () => {
  it('in a model entry', () => {
    const issues = issuesOf(() =>
      parseRegistryConfig(`
adapters:
  anthropic: { type: anthropic, api_key_env: ANTHROPIC_API_KEY }
models:
  anthropic:claude-haiku-4-5: { adapter: anthropic, wire_name: claude-haiku-4-5, alias: [haiku] }
`),
    );
    expect(issues).toEqual([
      {
        path: 'models.anthropic:claude-haiku-4-5',
        message: 'unknown field "alias"; did you mean "aliases"?',
      },
    ]);
  });

  it('in an adapter entry, and at the top, with the source in the message', () => {
    const run = () =>
      parseRegistryConfig(
        `
adapter:
  anthropic: { type: anthropic }
models: {}
`,
        'models.yaml',
      );
    expect(issuesOf(run)).toContainEqual({
      path: '$',
      message: 'unknown field "adapter"; did you mean "adapters"?',
    });
    expect(
      issuesOf(() =>
        parseRegistryConfig({
          adapters: { anthropic: { type: 'anthropic', api_key_evn: 'ANTHROPIC_API_KEY' } },
          models: {},
        }),
      ),
    ).toEqual([
      {
        path: 'adapters.anthropic',
        message: 'unknown field "api_key_evn"; did you mean "api_key_env"?',
      },
    ]);
    expect(run).toThrow(
      /^models\.yaml is invalid: .*\$: unknown field "adapter"; did you mean "adapters"\?$/,
    );
  });

  it('a field like no known one is named alone', () => {
    expect(
      issuesOf(() =>
        parseRegistryConfig({
          adapters: { anthropic: { type: 'anthropic', colour: 'red' } },
          models: {},
        }),
      ),
    ).toEqual([{ path: 'adapters.anthropic', message: 'unknown field "colour"' }]);
  });
});

describe('routing.yaml: an unknown field names the nearest known one', () => {
  it('at the top', () => {
    expect(
      issuesOf(() =>
        parseRoutingConfig(`
global_default: sonnet
fallback:
  sonnet: [haiku]
`),
      ),
    ).toEqual([{ path: '$', message: 'unknown field "fallback"; did you mean "fallbacks"?' }]);
  });

  it('in a rule and in its condition, under their paths', () => {
    const issues = issuesOf(() =>
      parseRoutingConfig(`
global_default: sonnet
rules:
  - name: quick
    when: { max_estimated_token: 200 }
    use: haiku
    stricts: true
`),
    );
    expect(issues).toEqual([
      {
        path: 'rules[0].when',
        message: 'unknown field "max_estimated_token"; did you mean "max_estimated_tokens"?',
      },
      { path: 'rules[0]', message: 'unknown field "stricts"; did you mean "strict"?' },
    ]);
  });
});

describe('ModelRegistry: a type no factory builds', () => {
  it('names the nearest factory type in the models’ not-configured reason', () => {
    const registry = ModelRegistry.fromYaml(
      `
adapters:
  antropic: { type: antropic, api_key: sk-ant-test }
models:
  antropic:claude-haiku-4-5: { adapter: antropic, wire_name: claude-haiku-4-5 }
`,
      { factories: factories(), env: {} },
    );
    expect(registry.get('antropic:claude-haiku-4-5').not_configured_reason).toBe(
      'no adapter factory for type "antropic"; did you mean "anthropic"? (known: anthropic, openai, ollama)',
    );
  });
});
