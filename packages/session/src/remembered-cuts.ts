import type { Message } from '@yourtool/core';
import { boundedRouteInput } from './bound-targets.js';
import { compactionOf } from './compaction.js';
import { type RoutedStep, type RoutingTurn, turnStart } from './turn-state.js';

/**
 * Remembers the cut a turn made when it left the oldest turns out (decision 0155), in the
 * manager's `LastCuts`, so the next turns leave out the same messages while that
 * still fits: their requests then start alike, which a provider's prompt cache rewards, and the
 * WARN is not repeated.
 */
export function rememberCut(state: RoutingTurn, through: string, note: Message): void {
  state.manager.cuts.set(state.inputs.session.id, { through, note });
}

/**
 * Leaves out what the session's last cut left out, when that cut still falls before the turn
 * and between turns, and routes the shorter history for `model`. The routed step when it
 * fits; else null, with the turn's history as it was.
 */
export function reuseLastCut(state: RoutingTurn, model: string): RoutedStep | null {
  const { settings, cuts } = state.manager;
  const last = cuts.get(state.inputs.session.id);
  if (!last || !compactionOf(last.note)) return null;
  const { history } = state;
  const at = history.findIndex((m) => m.id === last.through);
  if (at < 0 || at >= turnStart(state) || history[at + 1]?.role !== 'user') return null;
  const before = [...history];
  history.splice(0, history.length, last.note, ...history.slice(at + 1));
  try {
    const input = boundedRouteInput(state, model);
    const decision = settings.router.route(input);
    settings.logger.info?.(
      {
        event: 'history_turns_left_out',
        session_id: state.inputs.session.id,
        model: decision.model,
        reused: true,
        through_message_id: last.through,
      },
      'the oldest turns are left out of the request as in the last turn',
    );
    return { input, decision };
  } catch {
    history.splice(0, history.length, ...before);
    return null;
  }
}
