// What the CLI touches of its process. Kept apart from io.ts (secrets, error reports), which
// imports @yourtool/core: the entry point reads only this, so `--help` loads nothing heavy
// (docs/decisions/0188).

/** Where the CLI writes: `process.stdout` / `process.stderr`, or a stream of a test. */
export interface OutputStream {
  write(chunk: string): unknown;
  /** A terminal: progress is animated, prompts are edited with readline. */
  isTTY?: boolean;
}

/** Where the CLI reads its input (the chat REPL, `sessions import -`, confirmations). */
export type InputStream = NodeJS.ReadableStream & { isTTY?: boolean };

/**
 * Everything the CLI touches of its process, so it can run inside another program or a test:
 * its streams, environment, working directory and Ctrl-C.
 */
export interface CliIo {
  stdin: InputStream;
  /** Results: tables, session lines, the chat's replies and prompts. */
  stdout: OutputStream;
  /** Errors, warnings, progress and notices. */
  stderr: OutputStream;
  /** Where `api_key_env`, `YOURTOOL_STORE` and the like are read. */
  env: Readonly<Record<string, string | undefined>>;
  /** Where relative paths (`./models.yaml`, `sqlite:./x.db`) start. */
  cwd: string;
  /** Subscribes to Ctrl-C; returns the unsubscribe function. Default: the process's SIGINT. */
  onInterrupt(listener: () => void): () => void;
}

/** The process's own streams, environment, directory and SIGINT. */
export function processIo(): CliIo {
  return {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    onInterrupt(listener) {
      process.on('SIGINT', listener);
      return () => process.off('SIGINT', listener);
    },
  };
}
