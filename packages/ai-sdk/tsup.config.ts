import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', model: 'src/model/index.ts', adapter: 'src/adapter/index.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node22',
});
