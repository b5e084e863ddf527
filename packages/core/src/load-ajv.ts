import type AjvDraft07 from 'ajv';
import type { Ajv2020 } from 'ajv/dist/2020.js';

/** The options every ajv instance of core is built with (`format` is an annotation only). */
const AJV_OPTIONS = { allErrors: true, strict: false, validateFormats: false } as const;

/** Node's `require`, relative to this module (the ESM and the CommonJS build alike). */
function nodeRequire(): (id: string) => unknown {
  const nodeModule = globalThis.process?.getBuiltinModule?.('node:module');
  if (!nodeModule) {
    throw new Error(
      'ajv could not be loaded: JSON Schema validation needs Node.js 22.3 or newer (process.getBuiltinModule)',
    );
  }
  return nodeModule.createRequire(import.meta.url);
}

/**
 * A draft-07 ajv instance, its module loaded on this first use rather than when core is imported
 * (ajv is some 90 modules; a process that never validates a tool input never loads it).
 */
export function newDraft07Ajv(): AjvDraft07 {
  const loaded = nodeRequire()('ajv') as { default?: typeof AjvDraft07 } & typeof AjvDraft07;
  const Ajv = loaded.default ?? loaded;
  return new Ajv(AJV_OPTIONS);
}

/** A draft 2020-12 ajv instance, its module loaded on this first use (see {@link newDraft07Ajv}). */
export function newDraft2020Ajv(): Ajv2020 {
  const loaded = nodeRequire()('ajv/dist/2020.js') as { Ajv2020: typeof Ajv2020 };
  return new loaded.Ajv2020(AJV_OPTIONS);
}
