import type { WrittenList } from '@yourtool/core';

/**
 * A request body as UTF-8 JSON, exactly the bytes of `JSON.stringify(body)`, with the list at
 * `key` written as `written` says (its remembered bytes copied in one piece, the rest's JSON
 * after them) when it knows the list (decision 0193); every other field is serialized now.
 */
export function jsonBodyBytes(
  body: Readonly<Record<string, unknown>>,
  key: string,
  written: (list: readonly unknown[]) => WrittenList | null,
): Uint8Array {
  let before = '{';
  let known: WrittenList | null = null;
  let after = '';
  for (const name of Object.keys(body)) {
    const value = body[name];
    // what JSON.stringify leaves out of an object
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue;
    const field = `${before === '{' ? '' : ','}${JSON.stringify(name)}:`;
    if (known !== null) {
      after += `${field}${JSON.stringify(value)}`;
      continue;
    }
    const list = name === key && Array.isArray(value) ? written(value) : null;
    if (list === null) {
      before += `${field}${JSON.stringify(value)}`;
      continue;
    }
    known = list;
    before += `${field}[`;
    after = `${list.prefix.length > 0 && list.rest !== '' ? ',' : ''}${list.rest}]`;
  }
  if (known === null) return Buffer.from(`${before}}`, 'utf8');
  const tail = Buffer.from(`${after}}`, 'utf8');
  return Buffer.concat([Buffer.from(before, 'utf8'), known.prefix, tail]);
}
