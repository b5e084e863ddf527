/**
 * A JavaScript number written as a plain decimal string (`0.00000566`, never `5.66e-6`), digit
 * for digit as its shortest round-trip form (`String(n)`), so the figure the provider sent is
 * kept exactly as it was written on the wire. `null` for NaN and infinities.
 */
export function numberToDecimalString(value: number): string | null {
  if (!Number.isFinite(value)) return null;
  if (Object.is(value, -0)) return '0';
  const shortest = String(value);
  const exponent = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(shortest);
  if (!exponent) return shortest;
  const [, sign = '', whole = '', fraction = '', power = '0'] = exponent;
  const digits = `${whole}${fraction}`;
  // where the decimal point falls in `digits` once the exponent is applied
  const point = whole.length + Number(power);
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}
