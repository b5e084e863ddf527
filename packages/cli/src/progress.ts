import type { OutputStream } from './io.js';

/** Progress shown on stderr while work is under way. */
export interface Progress {
  /** Changes the label. */
  update(label: string): void;
  /** Ends the progress display (clears the spinner line). Idempotent. */
  stop(): void;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** Options of {@link startProgress}. */
export interface ProgressOptions {
  /** Nothing is shown for work shorter than this. Default 1000 ms. */
  delayMs?: number;
  /** Spinner frame interval on a terminal. Default 80 ms. */
  intervalMs?: number;
}

/**
 * Shows progress for work that takes more than `delayMs`: on a terminal, a spinner line that
 * is cleared when the work ends; elsewhere (a pipe, a file, CI logs), one plain line
 * `label…`, written once and never erased. Work that ends sooner shows nothing.
 */
export function startProgress(
  stream: OutputStream,
  label: string,
  options: ProgressOptions = {},
): Progress {
  let current = label;
  let frame = 0;
  let shown = false;
  let spinner: NodeJS.Timeout | undefined;
  const draw = () => {
    stream.write(`\r\x1b[K${FRAMES[frame++ % FRAMES.length]} ${current}`);
  };
  const start = setTimeout(() => {
    shown = true;
    if (!stream.isTTY) {
      stream.write(`${current}…\n`);
      return;
    }
    draw();
    spinner = setInterval(draw, options.intervalMs ?? 80);
    spinner.unref();
  }, options.delayMs ?? 1000);
  start.unref();
  let stopped = false;
  return {
    update(next) {
      current = next;
    },
    stop() {
      if (stopped) return;
      stopped = true;
      clearTimeout(start);
      if (spinner) clearInterval(spinner);
      if (shown && stream.isTTY) stream.write('\r\x1b[K');
    },
  };
}

/** Runs `work` with {@link startProgress} shown while it runs. */
export async function withProgress<T>(
  stream: OutputStream,
  label: string,
  work: () => Promise<T>,
  options?: ProgressOptions,
): Promise<T> {
  const progress = startProgress(stream, label, options);
  try {
    return await work();
  } finally {
    progress.stop();
  }
}
