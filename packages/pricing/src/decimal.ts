import Decimal from 'decimal.js';

/**
 * Decimal arithmetic with room to spare: rates have at most 42 significant digits and token
 * counts at most 16, so every product, quotient by 10^6 and sum made with it is exact.
 */
export const Exact = Decimal.clone({ precision: 100, rounding: Decimal.ROUND_HALF_EVEN });

/** A decimal string as the canonical format writes money: `"0.000654"`, `"-1"`, `"12"`. */
export const DECIMAL_STRING = /^-?\d+(\.\d+)?$/;
