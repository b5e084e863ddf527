const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/**
 * The exact sum of non-negative decimal strings such as `"0.000105"` (the form of
 * `usage.cost_usd`), as a decimal string without trailing zeros (`"0"` for none). No floating
 * point anywhere: `"0.1"` plus `"0.2"` is `"0.3"`. Throws a `RangeError` naming a value that is
 * not such a string.
 */
export function sumDecimalStrings(values: Iterable<string>): string {
  let scale = 0;
  const parsed: Array<[string, string]> = [];
  for (const value of values) {
    const match = DECIMAL.exec(value);
    if (!match) throw new RangeError(`"${value}" is not a non-negative decimal string`);
    const fraction = match[2] ?? '';
    if (fraction.length > scale) scale = fraction.length;
    parsed.push([match[1] as string, fraction]);
  }
  let total = 0n;
  for (const [whole, fraction] of parsed) total += BigInt(whole + fraction.padEnd(scale, '0'));
  if (scale === 0) return total.toString();
  const digits = total.toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, -scale);
  const fraction = digits.slice(-scale).replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
}

/**
 * A finite number as a plain decimal string, never in exponent notation: `5.66e-7` is
 * `"0.000000566"`, `1e21` is `"1000000000000000000000"`. The digits are JavaScript's shortest
 * round-trip representation of the number, only moved around the decimal point.
 */
export function numberToDecimalString(value: number): string {
  if (!Number.isFinite(value)) throw new RangeError(`${value} is not a finite number`);
  const text = String(value);
  const match = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!match) return text;
  const [, sign, lead, rest = '', exp] = match;
  const digits = `${lead}${rest}`;
  const point = 1 + Number(exp);
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}
