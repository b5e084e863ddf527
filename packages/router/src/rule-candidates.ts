import type { Candidate } from './candidate-check.js';
import type { ModelRegistry } from './registry.js';
import type { RoutingRule } from './routing-config.js';

/** A rule's model names: `use` or its tier's models, then its `fallbacks`. */
function ruleNames(
  registry: ModelRegistry,
  rule: RoutingRule,
): Array<{ name: string; fallback: boolean }> {
  const own = rule.use ? [rule.use] : registry.modelsOfTier(rule.use_tier ?? '').map((m) => m.id);
  return [
    ...own.map((name) => ({ name, fallback: false })),
    ...(rule.fallbacks ?? []).map((name) => ({ name, fallback: true })),
  ];
}

/** The canonical ids a rule may send a turn to (its models and fallbacks that resolve). */
export function ruleModelIds(registry: ModelRegistry, rule: RoutingRule): Set<string> {
  const ids = new Set<string>();
  for (const { name } of ruleNames(registry, rule)) {
    try {
      ids.add(registry.resolve(name));
    } catch {
      // an unknown name allows nothing; checkRoutingConfig reports it
    }
  }
  return ids;
}

/** The candidates a matching rule offers: its models, then its fallbacks. */
export function ruleCandidates(registry: ModelRegistry, rule: RoutingRule): Candidate[] {
  return ruleNames(registry, rule).map(({ name, fallback }) => ({
    policy: 'RULE' as const,
    name,
    rule_name: rule.name,
    reason: fallback ? `rule ${rule.name} (fallback)` : `rule ${rule.name}`,
  }));
}
