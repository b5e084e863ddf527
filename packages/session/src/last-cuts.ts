import type { Message } from '@yourtool/core';

/** A session's last in-memory cut: the last message left out, and the note that stood for it. */
export interface RememberedCut {
  through: string;
  note: Message;
}

/** Sessions whose last cut a manager remembers, the least recently used forgotten first. */
const KEPT_CUTS = 256;

/**
 * The last in-memory cut of each session (decision 0155), remembered by one session manager.
 * Owner and lifetime (decision 0165): the manager creates one with its context and it lives as
 * long as the manager. Bound: {@link KEPT_CUTS} sessions, the least recently cut forgotten
 * first; each entry holds the id of the last message left out and the note that stood for it.
 */
export class LastCuts {
  readonly #cuts = new Map<string, RememberedCut>();

  /** The session's last cut, if remembered. */
  get(sessionId: string): RememberedCut | undefined {
    return this.#cuts.get(sessionId);
  }

  /** Remembers the session's last cut, forgetting the least recently cut session past the bound. */
  set(sessionId: string, cut: RememberedCut): void {
    this.#cuts.delete(sessionId);
    this.#cuts.set(sessionId, cut);
    if (this.#cuts.size > KEPT_CUTS) this.#cuts.delete(this.#cuts.keys().next().value as string);
  }
}
