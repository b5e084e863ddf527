import { readFileSync } from 'node:fs';
import type { OllamaShowLike } from '../src/models.js';

/** A recorded `/api/show` reply from `test/show/<name>.json`, in the documented shape. */
export function showFixture(name: string): OllamaShowLike {
  return JSON.parse(
    readFileSync(new URL(`./show/${name}.json`, import.meta.url), 'utf8'),
  ) as OllamaShowLike;
}
