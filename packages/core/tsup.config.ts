import { defineConfig } from 'tsup';

export default defineConfig({
  // the contract, the adapter toolkit and the in-memory store; shared code is split into
  // chunks (ESM and CJS alike) so a class has one identity whichever entry it came through
  entry: {
    index: 'src/index.ts',
    adapter: 'src/toolkit.ts',
    'memory-store': 'src/memory-store-entry.ts',
  },
  format: ['esm', 'cjs'],
  splitting: true,
  // `import.meta.url` in the CommonJS build (load-ajv.ts loads ajv relative to core)
  shims: true,
  // load-zod.ts loads zod's ES module entry through `import.meta.resolve`, which the CommonJS
  // build does not have: there it is undefined, and zod's CommonJS entry is loaded
  esbuildOptions(options, { format }) {
    if (format === 'cjs')
      options.define = { ...options.define, 'import.meta.resolve': 'undefined' };
  },
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node22',
});
