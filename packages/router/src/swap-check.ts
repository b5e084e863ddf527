import { notDetected } from './candidate-check.js';
import { SwapRefusedError } from './errors.js';
import { capabilityProblems, turnNeeds } from './requirements.js';
import type { SwapInput } from './route-types.js';
import type { RouterContext } from './router-context.js';

/**
 * The canonical id of `model` when it can take the session's history, else
 * {@link SwapRefusedError} naming every reason (not configured, capabilities not detected, what
 * the history needs that it lacks); an unknown name throws `UnknownModelError`.
 */
export function checkSwap(context: RouterContext, model: string, input: SwapInput): string {
  const { registry } = context;
  const registered = registry.get(model);
  const reasons: string[] = [];
  if (registered.status === 'not_configured') {
    reasons.push(`it is not configured (${registered.not_configured_reason})`);
  } else {
    const adapter = registry.adapterFor(registered.id);
    if (adapter.capabilitiesDetected?.(registered.id) === false) {
      reasons.push(`its ${notDetected(context, registered.id)}`);
    } else {
      const caps = registry.capabilitiesFor(registered.id);
      const estimate = adapter.estimateInputTokens(
        input.messages,
        input.tools ?? [],
        input.system_prompt,
      );
      reasons.push(...capabilityProblems(caps, turnNeeds(input), estimate));
    }
  }
  if (reasons.length > 0) {
    throw new SwapRefusedError(
      registered.id,
      `Cannot swap to ${registered.display_name}: ${reasons.join('; ')}. Active model unchanged.`,
      reasons,
    );
  }
  return registered.id;
}
