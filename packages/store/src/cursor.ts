import { InvalidStoreInputError } from './errors.js';

/** A position in an ordered listing: a microsecond time and the row id breaking ties. */
export interface Position {
  at: number;
  id: string;
}

/** Encodes a position as an opaque cursor string (base64url JSON). */
export function encodeCursor(position: Position): string {
  return Buffer.from(JSON.stringify([position.at, position.id]), 'utf8').toString('base64url');
}

/** Decodes a cursor made by {@link encodeCursor}. @throws InvalidStoreInputError otherwise. */
export function decodeCursor(cursor: string): Position {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      Number.isSafeInteger(value[0]) &&
      typeof value[1] === 'string'
    ) {
      return { at: value[0] as number, id: value[1] };
    }
  } catch {
    // reported below
  }
  throw new InvalidStoreInputError('cursor', [
    { path: 'cursor', message: `"${cursor}" is not a cursor returned by this store` },
  ]);
}
