#!/usr/bin/env node
import { enableCompileCache } from 'node:module';
import { runCli } from './program.js';

// Node's on-disk cache of compiled code (in the OS temp directory; NODE_DISABLE_COMPILE_CACHE=1
// turns it off): the modules a command imports when it runs (the store, kysely, core's schemas)
// are compiled once, not on every start (docs/decisions/0188).
enableCompileCache?.();

runCli(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`yourtool: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
