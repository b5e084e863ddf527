// The exact sum of non-negative decimal strings, as core's `sumDecimalStrings` makes it, for the
// listing, which must not load @yourtool/core (its entry point builds zod's schemas at import).

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/**
 * The exact sum of `values`, non-negative decimal strings (`"0.0084"`), without trailing zeros
 * in the fraction; `"0"` for none. Equals core's `sumDecimalStrings` (a test compares them).
 * @throws RangeError naming a value that is not a non-negative decimal string.
 */
export function sumDecimals(values: readonly string[]): string {
  let scale = 0;
  const parts: Array<[string, string]> = [];
  for (const value of values) {
    const match = DECIMAL.exec(value);
    if (!match) throw new RangeError(`"${value}" is not a non-negative decimal string`);
    const fraction = match[2] ?? '';
    scale = Math.max(scale, fraction.length);
    parts.push([match[1] as string, fraction]);
  }
  let total = 0n;
  for (const [whole, fraction] of parts) total += BigInt(whole + fraction.padEnd(scale, '0'));
  if (scale === 0) return total.toString();
  const digits = total.toString().padStart(scale + 1, '0');
  const fraction = digits.slice(-scale).replace(/0+$/, '');
  const whole = digits.slice(0, -scale);
  return fraction === '' ? whole : `${whole}.${fraction}`;
}
