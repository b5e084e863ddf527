import { defineConfig } from 'tsup';

export default defineConfig({
  // index: the store; listing: a SQLite store's sessions listed without kysely or core's
  // schemas (docs/decisions/0197). Shared code is split into chunks (ESM and CJS alike), so an
  // error class has one identity whichever entry threw it.
  entry: { index: 'src/index.ts', listing: 'src/listing/index.ts' },
  format: ['esm', 'cjs'],
  splitting: true,
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node22',
});
