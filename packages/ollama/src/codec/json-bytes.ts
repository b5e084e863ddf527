/** A string's UTF-8 bytes (a Node `Buffer`: sent as it is, never copied into another). */
export function utf8(text: string): Uint8Array {
  return Buffer.from(text, 'utf8');
}

/** Byte runs one after another, in one new array. */
export function concat(parts: readonly Uint8Array[]): Uint8Array {
  return Buffer.concat(parts);
}

/** No bytes. */
export const EMPTY: Uint8Array = new Uint8Array(0);
/** `,` in UTF-8. */
export const COMMA: Uint8Array = utf8(',');
