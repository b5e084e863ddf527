#!/usr/bin/env node
import { runCli } from './program.js';

runCli(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`yourtool: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
