/**
 * @yourtool/conformance: the loopback provider server, fixture loaders, the scenario catalog
 * and assertion helpers. The vitest suite itself is `@yourtool/conformance/vitest`.
 *
 * @packageDocumentation
 */
export * from './assertions.js';
export * from './catalog.js';
export * from './expected-responses.js';
export * from './fixture-writer.js';
export * from './fixtures.js';
export type * from './inspector.js';
export * from './replay.js';
export * from './server.js';
