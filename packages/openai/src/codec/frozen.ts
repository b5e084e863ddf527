/** Whether `value` and everything in it is frozen (so can never change). */
export function deepFrozen(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (!Object.isFrozen(value)) return false;
  for (const inner of Object.values(value)) if (!deepFrozen(inner)) return false;
  return true;
}

/** Freezes `value` and everything in it (a remembered wire form is shared by every request). */
export function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const inner of Object.values(value)) deepFreeze(inner);
}
