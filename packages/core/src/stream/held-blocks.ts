import type { StreamEvent } from '../schemas/stream.js';

/** A provider's handle for a block: its content-block index, a tool-call index, or a label. */
export type ProviderBlockKey = string | number;

/** One deferred builder call: replayed when the held blocks are released. */
type HeldOp = () => StreamEvent[];

/**
 * The blocks a `StreamBuilder` holds back while a tool use is open (`toolCallsEndAtFinish`): the
 * calls made for each, in the order the blocks began, so they replay after the tool use ends
 * with indexes that never decrease.
 * @internal
 */
export class HeldBlocks {
  readonly #order: HeldOp[][] = [];
  readonly #byKey = new Map<ProviderBlockKey, HeldOp[]>();

  /** Whether nothing is held. */
  get empty(): boolean {
    return this.#order.length === 0;
  }

  /** Whether block `key` is held back. */
  has(key: ProviderBlockKey): boolean {
    return this.#byKey.has(key);
  }

  /** Defers `op` when block `key` is already held back; returns whether it was. */
  append(key: ProviderBlockKey, op: HeldOp): boolean {
    const ops = this.#byKey.get(key);
    if (!ops) return false;
    ops.push(op);
    return true;
  }

  /** Holds back a new block `key`, beginning with `op`. */
  begin(key: ProviderBlockKey, op: HeldOp): void {
    const ops = [op];
    this.#order.push(ops);
    this.#byKey.set(key, ops);
  }

  /** Takes every held call, blocks in order, and forgets them. */
  takeAll(): HeldOp[] {
    const ops = this.#order.splice(0).flat();
    this.#byKey.clear();
    return ops;
  }
}
