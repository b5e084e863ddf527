import { RouterConfigError } from './errors.js';
import type { ModelRegistry } from './registry.js';
import type { RoutingConfig } from './routing-config.js';

/**
 * Checks that every model a routing configuration names (defaults, rules, rule and model
 * `fallbacks`, and the keys of `fallbacks`) resolves in the registry and every tier it names
 * has models; throws `RouterConfigError` listing each offending path. Pass it as
 * `validate` to `watchRoutingConfig` so a file naming an unknown model is refused.
 */
export function checkRoutingConfig(
  config: RoutingConfig,
  registry: ModelRegistry,
  source = '<inline>',
): void {
  const issues: Array<{ path: string; message: string }> = [];
  const resolves = (name: string, path: string) => {
    try {
      registry.resolve(name);
    } catch (error) {
      issues.push({ path, message: (error as Error).message });
    }
  };
  resolves(config.global_default, 'global_default');
  config.workspaces.forEach((w, i) => {
    resolves(w.default, `workspaces[${i}].default`);
  });
  config.rules.forEach((rule, i) => {
    if (rule.use) resolves(rule.use, `rules[${i}].use`);
    if (rule.use_tier && registry.modelsOfTier(rule.use_tier).length === 0) {
      issues.push({
        path: `rules[${i}].use_tier`,
        message: `no model has tier "${rule.use_tier}"`,
      });
    }
    rule.fallbacks?.forEach((name, j) => {
      resolves(name, `rules[${i}].fallbacks[${j}]`);
    });
  });
  for (const [key, list] of Object.entries(config.fallbacks)) {
    const at = `fallbacks["${key}"]`;
    resolves(key, at);
    list.forEach((name, j) => {
      resolves(name, `${at}[${j}]`);
    });
  }
  if (issues.length > 0) throw new RouterConfigError(source, issues);
}
