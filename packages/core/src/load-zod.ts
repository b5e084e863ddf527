import type { z } from 'zod';

/** zod's namespace (`z`), as `import { z } from 'zod'` gives it. */
export type ZodNamespace = typeof z;

/** zod, once loaded (see {@link loadZod}). */
let loaded: ZodNamespace | undefined;

/**
 * zod, loaded on its first use rather than when core is imported (zod is ~95 modules; a process
 * whose calls pass the hand-written checks of the first call never loads it). Synchronous:
 * Node's `require`, of zod's ES module entry in the ESM build (the instance an `import` of zod
 * gives, not a second copy; on Node older than 22.12, which cannot, its CommonJS entry) and of
 * its CommonJS entry in the CommonJS build.
 */
export function loadZod(): ZodNamespace {
  if (loaded) return loaded;
  const nodeModule = globalThis.process?.getBuiltinModule?.('node:module');
  if (!nodeModule) {
    throw new Error(
      'zod could not be loaded: core needs Node.js 22.3 or newer (process.getBuiltinModule)',
    );
  }
  const require = nodeModule.createRequire(import.meta.url);
  // in the ESM build zod's ES module entry (`import.meta.resolve` is undefined in the CommonJS one)
  if (typeof import.meta.resolve === 'function') {
    try {
      const { fileURLToPath } = process.getBuiltinModule('node:url');
      loaded = (require(fileURLToPath(import.meta.resolve('zod'))) as { z: ZodNamespace }).z;
      return loaded;
    } catch (error) {
      // Node before 22.12 cannot `require` an ES module: zod's CommonJS entry then
      if ((error as { code?: unknown }).code !== 'ERR_REQUIRE_ESM') throw error;
    }
  }
  loaded = (require('zod') as { z: ZodNamespace }).z;
  return loaded;
}
