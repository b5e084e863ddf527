import type { SessionRecord } from '@yourtool/core';
import type { TurnModel } from './telemetry-options.js';
import type { ManagerContext, TurnRequest } from './turn-state.js';

/**
 * The model a turn's `invoke_agent` span names at its start, where it is known before routing:
 * the turn's explicit choice (`options.model`), else the session's active model. Null when the
 * session has none (routing will choose) or the name is unknown to the registry; read only when
 * the turn is traced. `readSession` reads the session for it (the turn reuses that read).
 */
export async function knownTurnModel(
  manager: ManagerContext,
  request: TurnRequest,
  readSession: () => Promise<SessionRecord | null>,
): Promise<TurnModel | null> {
  const { router } = manager.settings;
  const name = request.options.model ?? (await readSession())?.active_model ?? null;
  if (!name) return null;
  try {
    const registered = router.registry.get(name);
    return {
      model: registered.id,
      adapter: router.registry.adapterFor(registered.id).name,
      wireName: registered.wire_name,
    };
  } catch {
    return null;
  }
}
