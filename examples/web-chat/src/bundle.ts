import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/** Bundles the page's script (React and `useChat`) in memory, once per server start. */
export async function bundleClient(): Promise<string> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL('./client.tsx', import.meta.url))],
    bundle: true,
    write: false,
    format: 'esm',
    minify: true,
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
  });
  return result.outputFiles[0]?.text ?? '';
}
