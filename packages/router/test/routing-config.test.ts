import { mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryLogger } from '@yourtool/core';
import { afterEach, describe, expect, it } from 'vitest';
import {
  checkRoutingConfig,
  ModelRegistry,
  parseRoutingConfig,
  RouterConfigError,
  type RoutingConfigWatcher,
  watchRoutingConfig,
} from '../src/index.js';
import { ENV, factories, MODELS_YAML } from './helpers.js';

describe('parseRoutingConfig', () => {
  it('applies defaults and refuses bad rules with their paths', () => {
    expect(parseRoutingConfig('global_default: sonnet')).toEqual({
      global_default: 'sonnet',
      workspaces: [],
      rules: [],
      fallbacks: {},
      pattern: { min_confidence: 0.7 },
    });
    const paths = (yaml: string) => {
      try {
        parseRoutingConfig(yaml);
        return [];
      } catch (error) {
        expect(error).toBeInstanceOf(RouterConfigError);
        return (error as RouterConfigError).issues.map((i) => i.path);
      }
    };
    expect(
      paths(
        'global_default: sonnet\nrules:\n  - { name: a, when: { needs_images: yes-please }, use: x }',
      ),
    ).toEqual(['rules[0].when.needs_images']);
    expect(
      paths('global_default: sonnet\nrules:\n  - { name: both, when: {}, use: a, use_tier: b }'),
    ).toEqual(['rules[0]']);
    expect(
      paths(
        'global_default: sonnet\nrules:\n  - { name: re, when: { message_matches: "(" }, use: a }',
      ),
    ).toEqual(['rules[0].when.message_matches']);
    expect(paths('rules: []\nunknown_key: 1')).toEqual(
      expect.arrayContaining(['global_default', '$']),
    );
  });
});

describe('watchRoutingConfig: hot reload', () => {
  let watcher: RoutingConfigWatcher | undefined;
  afterEach(() => watcher?.close());

  const registry = ModelRegistry.fromYaml(MODELS_YAML, { factories: factories(), env: ENV });
  const setup = () => {
    const dir = mkdtempSync(join(tmpdir(), 'routing-'));
    const file = join(dir, 'routing.yaml');
    writeFileSync(file, 'global_default: sonnet\n');
    const reloads: string[] = [];
    const errors: RouterConfigError[] = [];
    const logger = createMemoryLogger();
    watcher = watchRoutingConfig(file, {
      validate: (config) => checkRoutingConfig(config, registry, file),
      onReload: (config) => reloads.push(config.global_default),
      onError: (error) => errors.push(error),
      debounceMs: 10,
      logger,
    });
    return { dir, file, reloads, errors, logger, watcher };
  };

  it('re-reads a changed file', async () => {
    const { file, reloads, watcher: w } = setup();
    expect(w.current().global_default).toBe('sonnet');
    writeFileSync(file, 'global_default: gpt5\n');
    await expect.poll(() => w.current().global_default, { timeout: 3000 }).toBe('gpt5');
    expect(reloads).toEqual(['gpt5']);
    expect(w.lastError).toBeNull();
  });

  it('picks up a file replaced by rename, as editors do', async () => {
    const { dir, file, watcher: w } = setup();
    const temp = join(dir, 'routing.yaml.tmp');
    writeFileSync(temp, 'global_default: haiku\n');
    renameSync(temp, file);
    await expect.poll(() => w.current().global_default, { timeout: 3000 }).toBe('haiku');
  });

  it('keeps the last good configuration when the new file is invalid, and says why', async () => {
    const { file, errors, logger, watcher: w } = setup();
    writeFileSync(file, 'global_default: [unclosed\n');
    await expect.poll(() => errors.length, { timeout: 3000 }).toBe(1);
    expect(w.current().global_default).toBe('sonnet');
    expect(w.lastError?.message).toContain('not valid YAML');
    expect(logger.warnings()[0]?.obj).toMatchObject({ event: 'routing_config_refused' });
    writeFileSync(file, 'global_default: sonet\n');
    await expect.poll(() => errors.length, { timeout: 3000 }).toBe(2);
    expect(errors[1]?.message).toContain('did you mean "sonnet"');
    expect(w.current().global_default).toBe('sonnet');
    writeFileSync(file, 'global_default: opus\n');
    await expect.poll(() => w.current().global_default, { timeout: 3000 }).toBe('opus');
    expect(w.lastError).toBeNull();
  });

  it('fails at once when the first load is invalid', () => {
    const dir = mkdtempSync(join(tmpdir(), 'routing-'));
    const file = join(dir, 'routing.yaml');
    writeFileSync(file, 'rules: []\n');
    expect(() => watchRoutingConfig(file)).toThrowError(RouterConfigError);
    expect(() => watchRoutingConfig(join(dir, 'missing.yaml'))).toThrow(/cannot read/);
  });
});
