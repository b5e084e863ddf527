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
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node22',
});
