import type { Message } from '@yourtool/core';
import { compileMessagePattern } from './message-pattern.js';
import type { RouterContext, TurnFacts } from './router-context.js';
import type { RoutingRule, RuleCondition } from './routing-config.js';

/** Whether `path` is `root` or lies under it. */
export const withinWorkspace = (path: string | null | undefined, root: string): boolean => {
  if (!path) return false;
  const base = root.endsWith('/') ? root.slice(0, -1) : root;
  return path === base || path.startsWith(`${base}/`);
};

const lastUserText = (messages: readonly Message[]): string => {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message?.role === 'user') {
      return message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
    }
  }
  return '';
};

/** Whether the latest user text matches a rule's `message_matches` (compiled once). */
function matchesMessage(
  context: RouterContext,
  when: RuleCondition,
  messages: readonly Message[],
): boolean {
  const key = `${when.message_flags ?? ''}\u0000${when.message_matches}`;
  let regex = context.patterns.get(key);
  if (regex === undefined) {
    const compiled = compileMessagePattern(when.message_matches ?? '', when.message_flags);
    regex = compiled.ok ? compiled.regex : null;
    context.patterns.set(key, regex);
  }
  if (regex === null) return false; // a pattern that does not compile matches nothing
  return regex.test(lastUserText(messages));
}

/** The rules whose condition holds for this turn, in configuration order. */
export function matchingRules(context: RouterContext, turn: TurnFacts): RoutingRule[] {
  const { config, input, needs } = turn;
  let estimate: number | undefined;
  const estimated = () => {
    if (estimate === undefined) {
      // rules see one estimate for the history: the global default's adapter's
      try {
        estimate = turn.estimate(context.registry.adapterFor(config.global_default));
      } catch {
        estimate = 0;
      }
    }
    return estimate;
  };
  return config.rules.filter((rule) => {
    const when = rule.when;
    if (when.needs_images !== undefined && when.needs_images !== needs.imageMediaTypes.length > 0)
      return false;
    if (when.needs_tools !== undefined && when.needs_tools !== needs.tools) return false;
    if (when.needs_thinking !== undefined && when.needs_thinking !== needs.thinking) return false;
    if (
      when.needs_structured_output !== undefined &&
      when.needs_structured_output !== needs.structuredOutput
    )
      return false;
    if (when.tier !== undefined && when.tier !== input.tier) return false;
    if (when.workspace !== undefined && !withinWorkspace(input.workspace_path, when.workspace))
      return false;
    if (when.message_matches !== undefined && !matchesMessage(context, when, input.messages))
      return false;
    if (when.min_estimated_tokens !== undefined && estimated() < when.min_estimated_tokens)
      return false;
    if (when.max_estimated_tokens !== undefined && estimated() > when.max_estimated_tokens)
      return false;
    return true;
  });
}
