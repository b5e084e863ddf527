import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CliError, type CliIo, runCli } from '../src/index.js';
import { reportError, Secrets } from '../src/io.js';
import { startProgress } from '../src/progress.js';

/** runCli on captured streams. */
async function cli(argv: string[], env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const io: Partial<CliIo> = {
    stdin: new PassThrough(),
    stdout: { write: (s: string) => out.push(s) },
    stderr: { write: (s: string) => err.push(s) },
    env,
    cwd: '/nonexistent-dir-for-cli-tests',
    onInterrupt: () => () => {},
  };
  const code = await runCli(argv, io);
  return { code, stdout: out.join(''), stderr: err.join('') };
}

describe('runCli', () => {
  it('writes help and the version to the given stdout, with exit code 0', async () => {
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: yourtool \[options\] \[command\]/);
    expect(help.stdout).toMatch(/\n {2}sessions\s+look into a session store\n/);
    expect((await cli(['--version'])).stdout).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('documents --create, --skip-existing and --replace in the help of the commands', async () => {
    const chat = await cli(['chat', '--help']);
    expect(chat.stdout).toMatch(/\n {2}--create\s+make the store if it is missing/);
    const imported = await cli(['sessions', 'import', '--help']);
    expect(imported.stdout).toMatch(/\n {2}--create\s+make the store if it is missing/);
    expect(imported.stdout).toMatch(/\n {2}--skip-existing\s+keep sessions the store has already/);
    expect(imported.stdout).toMatch(/\n {2}--replace\s+overwrite sessions the store has already/);
    const migrate = await cli(['sessions', 'migrate', '--help']);
    expect(migrate.stdout).toMatch(/^Usage: yourtool sessions migrate \[options\]/);
    expect((await cli(['sessions', 'list', '--help'])).stdout).not.toMatch(/--create/);
  });

  it('answers a usage error with exit code 2 and a suggestion', async () => {
    const typo = await cli(['sesions', 'list']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/unknown command 'sesions'\n\(Did you mean sessions\?\)/);
    const missing = await cli(['replay', 'sess_1']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/required option '--model <name>' not specified/);
    const limit = await cli(['sessions', 'list', '--limit', 'ten']);
    expect(limit.code).toBe(2);
    expect(limit.stderr).toMatch(/--limit.*must be a whole number/);
  });

  it('reports a bad store URL in one line, the password redacted', async () => {
    const { code, stdout, stderr } = await cli([
      'sessions',
      'list',
      '--store',
      'mysql://u:hunter2@db/x',
    ]);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      'yourtool: cannot open store "mysql://u:[REDACTED]@db/x": unknown scheme "mysql:"; expected "sqlite:" or "postgres://"\n',
    );
  });
});

describe('reportError', () => {
  const io = (env: Record<string, string> = {}) => {
    const err: string[] = [];
    return { err, io: { stderr: { write: (s: string) => err.push(s) }, env } as unknown as CliIo };
  };

  it('prints an unexpected error without its stack, unless YOURTOOL_DEBUG is set', () => {
    const quiet = io();
    const bug = new TypeError('x is not a function');
    expect(reportError(bug, quiet.io, new Secrets())).toBe(1);
    expect(quiet.err.join('')).toBe(
      'yourtool: unexpected error: x is not a function\n(set YOURTOOL_DEBUG=1 to see where it happened)\n',
    );
    const debug = io({ YOURTOOL_DEBUG: '1' });
    reportError(bug, debug.io, new Secrets());
    expect(debug.err.join('')).toMatch(
      /^yourtool: unexpected error: TypeError: x is not a function\n\s+at /,
    );
  });

  it('never prints a known secret', () => {
    const { err, io: cliIo } = io();
    const secrets = new Secrets();
    secrets.add('hunter2-secret-value');
    expect(reportError(new CliError('bad password hunter2-secret-value', 3), cliIo, secrets)).toBe(
      3,
    );
    expect(err.join('')).not.toContain('hunter2-secret-value');
  });
});

describe('progress', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('shows nothing for work under a second', () => {
    vi.useFakeTimers();
    const written: string[] = [];
    const progress = startProgress(
      { write: (s: string) => written.push(s), isTTY: true },
      'working',
    );
    vi.advanceTimersByTime(900);
    progress.stop();
    vi.advanceTimersByTime(5000);
    expect(written).toEqual([]);
  });

  it('spins on a terminal and clears its line at the end', () => {
    vi.useFakeTimers();
    const written: string[] = [];
    const progress = startProgress(
      { write: (s: string) => written.push(s), isTTY: true },
      'working',
    );
    vi.advanceTimersByTime(1200);
    progress.stop();
    expect(written[0]).toBe('\r\x1b[K⠋ working');
    expect(written.length).toBeGreaterThan(2);
    expect(written.at(-1)).toBe('\r\x1b[K');
  });

  it('writes one plain line elsewhere', () => {
    vi.useFakeTimers();
    const written: string[] = [];
    const progress = startProgress({ write: (s: string) => written.push(s) }, 'working');
    vi.advanceTimersByTime(5000);
    progress.stop();
    expect(written).toEqual(['working…\n']);
  });
});
