import type Anthropic from '@anthropic-ai/sdk';

/** A growing byte buffer: `bytes[0 .. length)` hold what was written so far. */
export interface ByteRun {
  bytes: Uint8Array;
  length: number;
}

const COMMA = 0x2c;

/** A byte run with nothing written yet. */
export function emptyByteRun(): ByteRun {
  return { bytes: new Uint8Array(0), length: 0 };
}

/** Appends `part` to `run`, after a comma unless `run` is empty (a JSON list's members). */
export function appendListMember(run: ByteRun, part: Uint8Array): void {
  const needed = run.length + part.length + 1;
  if (needed > run.bytes.length) {
    const grown = new Uint8Array(Math.max(needed, run.bytes.length * 2));
    grown.set(run.bytes.subarray(0, run.length));
    run.bytes = grown;
  }
  if (run.length > 0) run.bytes[run.length++] = COMMA;
  run.bytes.set(part, run.length);
  run.length += part.length;
}

/** `text` as UTF-8 bytes. */
export const utf8 = (text: string): Uint8Array => Buffer.from(text, 'utf8');

/** The UTF-8 JSON of a turn that is remembered (written once, kept by the remembered prefix). */
export function rememberedTurnJson(turn: Anthropic.MessageParam): Uint8Array {
  return utf8(JSON.stringify(turn));
}
