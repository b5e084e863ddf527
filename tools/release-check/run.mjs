#!/usr/bin/env node
// pnpm release:check — proves that the packages work once published, the way a newcomer and a
// third-party adapter author meet them (issue 15, decision 0123):
//
//  1. copies the repository to a temporary directory and versions it there with changesets (the
//     repository's own .changeset/ and versions are never touched), builds every package;
//  2. packs every non-private package under packages/ and checks each tarball (LICENSE,
//     repository/homepage/bugs, the type declarations it names, no workspace: ranges, no exact
//     pin of @yourtool/core), and that `pnpm publish --dry-run` is clean;
//  3. starts verdaccio (pinned, installed into the toolchain cache like Node in .ci/run) on
//     127.0.0.1 and a free port, storage in the temporary directory, npmjs as uplink for
//     third-party dependencies only, and publishes the checked tarballs to it;
//  4. in an empty directory outside the repository installs @yourtool/core and
//     @yourtool/anthropic from it and runs the anthropic README's example, ESM and CommonJS,
//     against a loopback server playing recorded Anthropic replies;
//  4a. in another empty directory installs every adapter package createRuntime knows by type
//     (KNOWN_ADAPTER_PACKAGES: @yourtool/bedrock included) and loads each adapter class from its
//     ESM and CommonJS builds (adapter-imports.mjs); then Claude on Vertex AI: setupProblem()
//     names the optional peer @anthropic-ai/vertex-sdk until it is installed, and with it one
//     call reaches a loopback :rawPredict route through the real SDK (vertex-peer.mjs);
//  4b. in another empty directory runs exactly the @yourtool/runtime README's install line (every
//     package its example needs must be on it: no reliance on npm hoisting) and its example, a
//     tool loop on Claude and a swap to GPT-5, against a loopback server playing recorded replies;
//  4c. in another runs exactly the @yourtool/mcp README's install line and its twenty lines: a
//     Claude turn calling a tool of a stdio MCP server (the mcp package's test server, on the
//     SDK npm installed) through the runtime's mcp_servers, against the loopback server;
//  4d. in another installs @yourtool/ai-sdk, @yourtool/anthropic, @yourtool/core and `ai`: our
//     Anthropic adapter as an AI SDK model answers generateText from a loopback Messages API, and
//     the package's three entry points load from CommonJS (ai-sdk-user.mjs);
//  5. installs examples/third-party-adapter against the published core and conformance, type
//     checks it and runs its conformance suite;
//  6. publishes a core patch release, upgrades, and checks `npm ls @yourtool/core` shows one copy.
//
// Every wait has a deadline; verdaccio is stopped and the temporary directory removed on exit.
// KEEP_RELEASE_CHECK=1 keeps the directory for inspection.

import { spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { inspect } from 'node:util';
import { checkAdapterImports } from './adapter-imports.mjs';
import { checkAiSdkUser } from './ai-sdk-user.mjs';
import { checkVertexPeer } from './vertex-peer.mjs';

const VERDACCIO_VERSION = '6.10.4';
// Some registry mirrors drop node-fetch's `cjs` dist-tag, which verdaccio-audit asks for.
const VERDACCIO_OVERRIDES = { 'verdaccio-audit': { 'node-fetch': '2.7.0' } };

const root = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');
const cacheRoot =
  process.env.YOURTOOL_TOOLCHAIN_CACHE ?? join(homedir(), '.cache', 'yourtool-toolchain');
const work = mkdtempSync(join(tmpdir(), 'yourtool-release-check-'));
const started = Date.now();
let verdaccio = null;
let loopback = null;
/** The runtime example's loopback server (@yourtool/conformance's, from the built copy). */
let runtimeLoopback = null;
let passed = false;
/** Commands still running, stopped if the check ends early. */
const running = new Set();

// ---- plumbing ------------------------------------------------------------------------------

const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)}s`;
const step = (title) => process.stdout.write(`\n==> ${title} (${elapsed()})\n`);
const note = (text) => process.stdout.write(`    ${text}\n`);

class CheckFailed extends Error {}
const fail = (message) => {
  throw new CheckFailed(message);
};

function cleanup() {
  for (const child of running) child.kill('SIGKILL');
  if (verdaccio && verdaccio.exitCode === null) verdaccio.kill('SIGTERM');
  if (loopback) loopback.close();
  loopback = null;
  if (runtimeLoopback) runtimeLoopback.close().catch(() => {});
  runtimeLoopback = null;
  if (process.env.KEEP_RELEASE_CHECK === '1') {
    process.stdout.write(`release check files kept in ${work}\n`);
  } else {
    rmSync(work, { recursive: true, force: true });
  }
}
process.on('exit', cleanup);
// the whole check's deadline, on top of each command's own
const WHOLE_RUN_MS = 15 * 60_000;
setTimeout(() => {
  process.stderr.write(`release check FAILED: still running after ${WHOLE_RUN_MS / 60_000} min\n`);
  process.exit(1);
}, WHOLE_RUN_MS).unref();
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    process.stderr.write(`release check interrupted (${signal})\n`);
    process.exit(130);
  });
}

/**
 * Runs a command with a deadline; resolves to its output, rejects with the output's tail on a
 * non-zero exit or a passed deadline.
 */
function run(
  command,
  args,
  { cwd = root, env = {}, timeoutMs = 120_000, quiet = true, stdoutOnly = false } = {},
) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    running.add(child);
    let output = '';
    let stdout = '';
    const collect = (chunk) => {
      output += chunk.toString();
      if (output.length > 4_000_000) output = output.slice(-2_000_000);
      if (!quiet) process.stdout.write(chunk);
    };
    child.stdout.on('data', (chunk) => {
      stdout += chunk.toString();
      collect(chunk);
    });
    child.stderr.on('data', collect);
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new CheckFailed(
          `${command} ${args.join(' ')} took longer than ${timeoutMs / 1000} s\n${output.slice(-3000)}`,
        ),
      );
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      running.delete(child);
      reject(new CheckFailed(`${command} could not start: ${error.message}`));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      running.delete(child);
      if (code === 0) resolve(stdoutOnly ? stdout : output);
      else
        reject(
          new CheckFailed(
            `${command} ${args.join(' ')} (in ${cwd}) exited with ${code}\n${output.slice(-4000)}`,
          ),
        );
    });
  });
}

const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));
const writeJson = (file, value) => writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);

/**
 * Packages left out of a local run (`RELEASE_CHECK_EXCLUDE=@yourtool/a,@yourtool/b`), for a
 * package still being written; announced loudly, never set in CI.
 */
const excluded = new Set(
  (process.env.RELEASE_CHECK_EXCLUDE ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean),
);

/** Every non-private package under packages/ of `base`: new packages are included by themselves. */
function publishedPackages(base) {
  return readdirSync(join(base, 'packages'))
    .filter((dir) => existsSync(join(base, 'packages', dir, 'package.json')))
    .map((dir) => ({ dir, json: readJson(join(base, 'packages', dir, 'package.json')) }))
    .filter(({ json }) => json.private !== true && !excluded.has(json.name))
    .map(({ dir, json }) => ({ dir, name: json.name, version: json.version }));
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function waitFor(what, probe, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await probe().catch(() => false)) return;
    if (Date.now() > deadline) fail(`${what} within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const fetchWithin = (url, init = {}, timeoutMs = 10_000) =>
  fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });

// ---- 1. a versioned, built copy ------------------------------------------------------------

async function copyRepository(target) {
  let files;
  try {
    const listed = await run(
      'git',
      ['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
      {
        timeoutMs: 30_000,
      },
    );
    files = listed.split('\0').filter((file) => file !== '' && existsSync(join(root, file)));
  } catch {
    files = null;
  }
  if (files) {
    for (const file of files) {
      mkdirSync(dirname(join(target, file)), { recursive: true });
      cpSync(join(root, file), join(target, file), { verbatimSymlinks: true });
    }
    return files.length;
  }
  // not a git checkout: everything but what is built or installed
  const skip = new Set(['node_modules', 'dist', '.turbo', '.git', 'coverage']);
  cpSync(root, target, {
    recursive: true,
    filter: (source) => !skip.has(source.split('/').pop()),
  });
  return -1;
}

// ---- 2. tarball checks ---------------------------------------------------------------------

async function tarballFiles(tarball) {
  const listing = await run('tar', ['-tzf', tarball], { timeoutMs: 30_000 });
  return new Set(listing.split('\n').filter(Boolean));
}

async function checkTarball(pkg, tarball, coreVersion) {
  const files = await tarballFiles(tarball);
  const json = JSON.parse(
    await run('tar', ['-xzOf', tarball, 'package/package.json'], { timeoutMs: 30_000 }),
  );
  const problems = [];
  const need = (ok, problem) => {
    if (!ok) problems.push(problem);
  };
  need(files.has('package/LICENSE'), 'no LICENSE');
  need(files.has('package/README.md'), 'no README.md');
  need(
    typeof json.repository === 'object' &&
      /^git\+https:\/\/github\.com\/.+\.git$/.test(json.repository.url ?? '') &&
      json.repository.directory === `packages/${pkg.dir}`,
    'repository must be { type, url: git+https://github.com/....git, directory: packages/<dir> }',
  );
  need(typeof json.homepage === 'string' && json.homepage.startsWith('https://'), 'no homepage');
  need(typeof json.bugs?.url === 'string', 'no bugs.url');
  const typeFiles = new Set();
  if (json.types) typeFiles.add(json.types);
  const walk = (node) => {
    if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (key === 'types' && typeof value === 'string') typeFiles.add(value);
        else walk(value);
      }
    }
  };
  walk(json.exports);
  need(typeFiles.size > 0, 'no type declarations named');
  for (const file of typeFiles) {
    need(files.has(`package/${file.replace(/^\.\//, '')}`), `names ${file}, which it lacks`);
  }
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
    for (const [name, range] of Object.entries(json[field] ?? {})) {
      need(!String(range).startsWith('workspace:'), `${field}.${name} is still "${range}"`);
      if (name === '@yourtool/core') {
        need(
          range === `^${coreVersion}`,
          `${field}.${name} is "${range}", not the caret range of this release (^${coreVersion})`,
        );
      }
    }
  }
  need(
    !json.dependencies?.['@yourtool/core'] || pkg.name === '@yourtool/core',
    '@yourtool/core must be a peer dependency (decision 0120), not a dependency',
  );
  need(
    pkg.name === '@yourtool/core' || Boolean(json.peerDependencies?.['@yourtool/core']),
    '@yourtool/core is not a peer dependency',
  );
  const maps = [...files].filter((f) => f.endsWith('.js.map'));
  need(
    maps.length === 0 || [...files].some((f) => f.startsWith('package/src/')),
    'ships source maps but not the src/ they point at',
  );
  if (problems.length > 0) fail(`${pkg.name} tarball: ${problems.join('; ')}`);
  return json;
}

// ---- 3. the local registry -----------------------------------------------------------------

async function ensureVerdaccio() {
  const home = join(cacheRoot, `verdaccio-${VERDACCIO_VERSION}`);
  const bin = join(home, 'node_modules', 'verdaccio', 'bin', 'verdaccio');
  if (!existsSync(bin)) {
    note(`installing verdaccio ${VERDACCIO_VERSION} into ${home}`);
    mkdirSync(home, { recursive: true });
    writeJson(join(home, 'package.json'), {
      private: true,
      dependencies: { verdaccio: VERDACCIO_VERSION },
      overrides: VERDACCIO_OVERRIDES,
    });
    await run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: home,
      timeoutMs: 240_000,
    });
  }
  return bin;
}

async function upstreamRegistry() {
  const configured = (
    await run('npm', ['config', 'get', 'registry'], { timeoutMs: 30_000 }).catch(() => '')
  )
    .split('\n')
    .map((line) => line.trim())
    .find((line) => /^https?:\/\//.test(line));
  return configured ?? 'https://registry.npmjs.org/';
}

async function startRegistry(bin) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const storage = join(work, 'registry', 'storage');
  mkdirSync(storage, { recursive: true });
  const config = join(work, 'registry', 'config.yaml');
  const upstream = await upstreamRegistry();
  writeFileSync(
    config,
    [
      `storage: ${JSON.stringify(storage)}`,
      'auth:',
      '  htpasswd:',
      `    file: ${JSON.stringify(join(work, 'registry', 'htpasswd'))}`,
      '    max_users: 10',
      'uplinks:',
      '  npmjs:',
      `    url: ${JSON.stringify(upstream)}`,
      '    timeout: 60s',
      'packages:',
      // ours come from this registry only, never from the uplink
      "  '@yourtool/*':",
      '    access: $all',
      '    publish: $authenticated',
      "  '**':",
      '    access: $all',
      '    publish: $authenticated',
      '    proxy: npmjs',
      'web:',
      '  enable: false',
      'log: { type: stdout, format: pretty, level: warn }',
      '',
    ].join('\n'),
  );
  const log = join(work, 'registry', 'verdaccio.log');
  const { openSync } = await import('node:fs');
  const out = openSync(log, 'a');
  verdaccio = spawn(process.execPath, [bin, '--config', config, '--listen', `127.0.0.1:${port}`], {
    stdio: ['ignore', out, out],
  });
  verdaccio.on('exit', (code) => {
    if (!passed && code !== null && code !== 0) {
      process.stderr.write(
        `verdaccio exited with ${code}; log: ${readFileSync(log, 'utf8').slice(-2000)}\n`,
      );
    }
  });
  await waitFor(
    `verdaccio did not answer on ${url}`,
    async () => {
      if (verdaccio.exitCode !== null) fail(`verdaccio exited with ${verdaccio.exitCode}`);
      const response = await fetchWithin(`${url}/-/ping`, {}, 2000);
      return response.ok;
    },
    30_000,
  );
  const response = await fetchWithin(`${url}/-/user/org.couchdb.user:release-check`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      name: 'release-check',
      password: `pw-${Math.random().toString(36).slice(2)}`,
      type: 'user',
      roles: [],
      date: new Date().toISOString(),
    }),
  });
  const body = await response.json();
  if (!response.ok || typeof body.token !== 'string') {
    fail(`could not create the registry user: ${response.status} ${JSON.stringify(body)}`);
  }
  const npmrc = join(work, 'registry', 'npmrc');
  writeFileSync(
    npmrc,
    `registry=${url}/\n//127.0.0.1:${port}/:_authToken=${body.token}\naudit=false\nfund=false\nupdate-notifier=false\n`,
  );
  return { url, port, upstream, npmrc };
}

// ---- 4. the README example against a loopback server ---------------------------------------

/** The first ```<lang> block after `heading` in a README. */
function readmeBlock(readme, heading, lang) {
  const text = readFileSync(readme, 'utf8');
  const at = text.indexOf(`\n${heading}\n`);
  if (at < 0) fail(`${relative(root, readme)}: no "${heading}" heading`);
  const match = new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(text.slice(at));
  if (!match) fail(`${relative(root, readme)}: no \`\`\`${lang} block after "${heading}"`);
  return match[1];
}

/**
 * The example as a runnable file: each `console.log(expr); // expected` becomes a check that
 * `expr` deep-equals `expected`, and the count of checks is reported on exit.
 */
function checkedExample(code, kind) {
  const checked = code.replace(/^(\s*)console\.log\((.*)\); \/\/ (.*)$/gm, '$1__check($2, $3);');
  const prelude =
    kind === 'esm'
      ? "import { isDeepStrictEqual as __equal, inspect as __inspect } from 'node:util';\n"
      : "const { isDeepStrictEqual: __equal, inspect: __inspect } = require('node:util');\n";
  return (
    prelude +
    'let __checks = 0;\n' +
    "process.on('exit', () => process.stdout.write('\\nreadme-checks=' + __checks + '\\n'));\n" +
    'function __check(actual, expected) {\n' +
    '  __checks++;\n' +
    '  if (!__equal(actual, expected)) {\n' +
    "    throw new Error('README example: expected ' + __inspect(expected) + ', got ' + __inspect(actual));\n" +
    '  }\n' +
    '}\n' +
    checked
  );
}

/** A loopback "Anthropic": JSON replies from the text fixture, streams from tool-call-stream. */
async function startAnthropicLoopback() {
  const fixtures = join(root, 'packages', 'anthropic', 'test', 'fixtures');
  const text = readJson(join(fixtures, 'text', '1-response.json'));
  const stream = readFileSync(join(fixtures, 'tool-call-stream', '1-stream.sse'), 'utf8');
  const requests = [];
  const server = createServer((req, res) => {
    const parts = [];
    req.on('data', (chunk) => parts.push(chunk));
    req.on('end', () => {
      let body = {};
      try {
        body = JSON.parse(Buffer.concat(parts).toString('utf8'));
      } catch {
        // a body that is not JSON gets the JSON reply, and the example's checks catch it
      }
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      requests.push({
        path: req.url,
        stream: body.stream === true,
        key: req.headers['x-api-key'] ?? bearer,
      });
      if (body.stream === true) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        res.end(stream);
      } else {
        res.writeHead(text.status ?? 200, { 'content-type': 'application/json', ...text.headers });
        res.end(JSON.stringify(text.body));
      }
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  loopback = server;
  return { url: `http://127.0.0.1:${server.address().port}`, requests };
}

async function runExample(file, env, expectedChecks) {
  const output = await run(process.execPath, [file], {
    cwd: dirname(file),
    env,
    timeoutMs: 60_000,
  });
  const checks = Number(/readme-checks=(\d+)/.exec(output)?.[1] ?? -1);
  if (checks !== expectedChecks) {
    fail(`${file}: ran ${checks} of the README's ${expectedChecks} checks\n${output.slice(-2000)}`);
  }
  return checks;
}

/** How many `console.log(...); // expected` lines a README block holds. */
const countChecks = (code) => (code.match(/^\s*console\.log\(.*\); \/\/ .*$/gm) ?? []).length;

/**
 * The package names of a README's install line: its first ```sh block that is exactly one
 * `npm install <package> ...` line.
 */
function readmeInstallLine(readme) {
  const text = readFileSync(readme, 'utf8');
  const match = /```sh\n(npm install [^\n]+)\n```/.exec(text);
  if (!match) fail(`${relative(root, readme)}: no \`\`\`sh block holding one npm install line`);
  const names = match[1].trim().split(/\s+/).slice(2);
  const odd = names.filter((name) => !/^(@[a-z0-9-]+\/)?[a-z0-9.-]+$/.test(name));
  if (names.length === 0 || odd.length > 0) {
    fail(`${relative(root, readme)}: the install line "${match[1]}" is not only package names`);
  }
  return { line: match[1].trim(), names };
}

/**
 * An Anthropic streamed reply of one content block: `[block, delta]`, the delta a text for a
 * text block or the input JSON for a tool use (the MCP step scripts a tool call this way).
 */
function anthropicStream([block, delta]) {
  const sse = (event, data) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
  const tool = block.type === 'tool_use';
  const usage = { input_tokens: 100, output_tokens: 5 };
  return {
    type: 'stream',
    contentType: 'text/event-stream',
    chunks: [
      sse('message_start', {
        type: 'message_start',
        message: {
          id: 'msg_rc',
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-6',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage,
        },
      }),
      sse('content_block_start', { type: 'content_block_start', index: 0, content_block: block }),
      sse('content_block_delta', {
        type: 'content_block_delta',
        index: 0,
        delta: tool
          ? { type: 'input_json_delta', partial_json: delta }
          : { type: 'text_delta', text: delta },
      }),
      sse('content_block_stop', { type: 'content_block_stop', index: 0 }),
      sse('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: tool ? 'tool_use' : 'end_turn', stop_sequence: null },
        usage,
      }),
      sse('message_stop', { type: 'message_stop' }),
    ],
  };
}

/** The packages a code block imports (`from '...'`, `require('...')`), Node's own left out. */
function importedPackages(code) {
  const specifiers = [
    ...code.matchAll(/\bfrom\s*'([^']+)'/g),
    ...code.matchAll(/\brequire\(\s*'([^']+)'\s*\)/g),
  ].map((m) => m[1]);
  return [
    ...new Set(
      specifiers
        .filter((s) => !s.startsWith('.') && !s.startsWith('node:'))
        .map((s) => (s.startsWith('@') ? s.split('/').slice(0, 2) : s.split('/').slice(0, 1)))
        .map((parts) => parts.join('/')),
    ),
  ];
}

// ---- main ----------------------------------------------------------------------------------

async function main() {
  process.stdout.write(`release check in ${work}\n`);
  if (excluded.size > 0) {
    process.stdout.write(`LEFT OUT by RELEASE_CHECK_EXCLUDE: ${[...excluded].join(', ')}\n`);
  }
  const ciEnv = { CI: '1', TURBO_TELEMETRY_DISABLED: '1', DO_NOT_TRACK: '1' };

  step('copying the repository (the real .changeset/ and versions stay as they are)');
  const repo = join(work, 'repo');
  const copied = await copyRepository(repo);
  note(copied >= 0 ? `${copied} files` : 'copied without git');

  step('install, version with changesets, build (in the copy)');
  await run('pnpm', ['install', '--frozen-lockfile', '--prefer-offline'], {
    cwd: repo,
    env: ciEnv,
    timeoutMs: 240_000,
  });
  const before = new Map(publishedPackages(repo).map((p) => [p.name, p.version]));
  await run('pnpm', ['exec', 'changeset', 'version'], { cwd: repo, env: ciEnv, timeoutMs: 60_000 });
  const packages = publishedPackages(repo);
  for (const pkg of packages) note(`${pkg.name} ${before.get(pkg.name)} → ${pkg.version}`);
  const buildFilters = packages.flatMap((p) => ['--filter', p.name]);
  await run('pnpm', [...buildFilters, '--workspace-concurrency', '4', 'run', 'build'], {
    cwd: repo,
    env: ciEnv,
    timeoutMs: 300_000,
  });
  const core = packages.find((p) => p.name === '@yourtool/core');
  if (!core) fail('no @yourtool/core under packages/');

  step(`pack and check ${packages.length} tarballs; pnpm publish --dry-run`);
  const tarballs = join(work, 'tarballs');
  mkdirSync(tarballs, { recursive: true });
  const packed = new Map();
  for (const pkg of packages) {
    const dir = join(repo, 'packages', pkg.dir);
    const output = await run('pnpm', ['pack', '--pack-destination', tarballs], {
      cwd: dir,
      timeoutMs: 60_000,
    });
    const tarball = output
      .split('\n')
      .map((line) => line.trim())
      .reverse()
      .find((line) => line.endsWith('.tgz'));
    if (!tarball) fail(`pnpm pack printed no tarball for ${pkg.name}:\n${output}`);
    const path = tarball.startsWith('/') ? tarball : join(tarballs, tarball);
    await checkTarball(pkg, path, core.version);
    packed.set(pkg.name, path);
  }
  note(
    'every tarball carries LICENSE, README, repository/homepage/bugs, its types, no workspace: ranges',
  );

  const bin = await ensureVerdaccio();
  step(`starting verdaccio ${VERDACCIO_VERSION} on 127.0.0.1`);
  const registry = await startRegistry(bin);
  note(`${registry.url} (uplink ${registry.upstream} for third-party packages only)`);
  const npmEnv = { npm_config_userconfig: registry.npmrc, npm_config_registry: `${registry.url}/` };

  for (const pkg of packages) {
    const output = await run(
      'pnpm',
      ['publish', '--dry-run', '--no-git-checks', '--registry', `${registry.url}/`],
      { cwd: join(repo, 'packages', pkg.dir), env: npmEnv, timeoutMs: 60_000 },
    );
    // pnpm's dry run says it skipped the upload; anything else it warns about is a problem
    const noisy = output
      .split('\n')
      .filter((line) => /\b(WARN|ERR!?|ERROR|warn|error)\b/.test(line))
      .filter((line) => !line.includes(`Skip publishing ${pkg.name}@${pkg.version} (dry run)`));
    if (noisy.length > 0)
      fail(`pnpm publish --dry-run for ${pkg.name} is not clean:\n${noisy.join('\n')}`);
  }
  note('pnpm publish --dry-run is clean for every package');

  step('publishing the checked tarballs');
  for (const pkg of packages) {
    await run('npm', ['publish', packed.get(pkg.name), '--access', 'public'], {
      cwd: work,
      env: npmEnv,
      timeoutMs: 60_000,
    });
  }
  note(packages.map((p) => `${p.name}@${p.version}`).join(', '));

  step('a newcomer: @yourtool/core + @yourtool/anthropic in an empty directory, README example');
  const app = join(work, 'app');
  mkdirSync(app, { recursive: true });
  writeJson(join(app, 'package.json'), {
    name: 'release-check-app',
    private: true,
    version: '1.0.0',
  });
  await run('npm', ['install', '@yourtool/core', '@yourtool/anthropic'], {
    cwd: app,
    env: npmEnv,
    timeoutMs: 240_000,
  });
  const server = await startAnthropicLoopback();
  const exampleEnv = {
    ANTHROPIC_API_KEY: 'sk-ant-release-check-0000000000',
    ANTHROPIC_BASE_URL: server.url,
  };
  const readme = join(root, 'packages', 'anthropic', 'README.md');
  const esm = readmeBlock(readme, '## Example', 'ts');
  writeFileSync(join(app, 'example.mts'), checkedExample(esm, 'esm'));
  await runExample(join(app, 'example.mts'), exampleEnv, countChecks(esm));
  note(`ESM (TypeScript, run by Node's type stripping): ${countChecks(esm)} checks`);
  const cjs = readmeBlock(readme, '### CommonJS', 'js');
  writeFileSync(join(app, 'example.cjs'), checkedExample(cjs, 'cjs'));
  await runExample(join(app, 'example.cjs'), exampleEnv, countChecks(cjs));
  note(
    `CommonJS: ${countChecks(cjs)} checks; ${server.requests.length} requests reached the loopback server`,
  );
  const keys = server.requests.map((r) => (r.key === exampleEnv.ANTHROPIC_API_KEY ? 'set' : r.key));
  if (keys.some((key) => key !== 'set')) {
    fail(
      `a request reached the loopback server without the configured API key: ${keys.join(', ')}`,
    );
  }

  step('every adapter package by type: installed from the registry, its class from ESM and CJS');
  const adapterCheck = await checkAdapterImports({ root, work, npmEnv, run, fail, excluded });
  note(
    `${adapterCheck.packages.join(', ')}: the class of each type (${adapterCheck.types.join(', ')}) loads from ESM and CommonJS`,
  );
  if (!excluded.has('@yourtool/anthropic')) {
    step('Claude on Vertex AI from the published package, its optional peer installed by the user');
    const range = await checkVertexPeer({
      root,
      app: join(work, 'adapters-app'),
      npmEnv,
      run,
      fail,
    });
    note(
      `without @anthropic-ai/vertex-sdk setupProblem() names it; with ${range} a :rawPredict call answers`,
    );
  }

  step(
    "a runtime user: exactly the runtime README's install line in an empty directory, its example",
  );
  const runtimeReadme = join(root, 'packages', 'runtime', 'README.md');
  const install = readmeInstallLine(runtimeReadme);
  const runtimeExample = readmeBlock(runtimeReadme, '## Example', 'ts');
  // what the example imports must be on the line itself, not merely hoisted by npm
  const unlisted = importedPackages(runtimeExample).filter((name) => !install.names.includes(name));
  if (unlisted.length > 0) {
    fail(
      `the runtime README's example imports ${unlisted.join(', ')}, which its install line ("${install.line}") does not name`,
    );
  }
  const runtimeApp = join(work, 'runtime-app');
  mkdirSync(runtimeApp, { recursive: true });
  writeJson(join(runtimeApp, 'package.json'), {
    name: 'release-check-runtime-app',
    private: true,
    version: '1.0.0',
  });
  await run('npm', ['install', ...install.names], {
    cwd: runtimeApp,
    env: npmEnv,
    timeoutMs: 240_000,
  });
  note(`${install.line}: installed`);
  // the loopback server and fixture loader of @yourtool/conformance, from the built copy, as the
  // runtime's own README test uses them: a tool loop on Claude (two calls), then GPT-5
  const conformanceKit = await import(
    pathToFileURL(join(repo, 'packages', 'conformance', 'dist', 'index.js')).href
  );
  runtimeLoopback = await conformanceKit.startLoopbackServer();
  const recorded = (provider) =>
    conformanceKit.loadFixtureDirectory(join(root, 'packages', provider, 'test', 'fixtures'));
  runtimeLoopback.enqueue(
    ...(recorded('anthropic')['tool-call-stream'] ?? []),
    ...(recorded('anthropic')['text-stream'] ?? []),
    ...(recorded('openai')['text-stream'] ?? []),
  );
  writeFileSync(join(runtimeApp, 'example.mts'), checkedExample(runtimeExample, 'esm'));
  await runExample(
    join(runtimeApp, 'example.mts'),
    {
      ANTHROPIC_API_KEY: 'sk-ant-release-check-0000000000',
      ANTHROPIC_BASE_URL: runtimeLoopback.url,
      OPENAI_API_KEY: 'sk-release-check-00000000000000',
      OPENAI_BASE_URL: runtimeLoopback.url,
    },
    countChecks(runtimeExample),
  );
  const paths = runtimeLoopback.requests.map((r) => r.path).join(', ');
  if (paths !== '/v1/messages, /v1/messages, /chat/completions') {
    fail(`the runtime example's requests were ${paths || 'none'}, not Claude twice then GPT-5`);
  }
  note(
    `ESM (TypeScript, run by Node's type stripping): ${countChecks(runtimeExample)} checks; requests ${paths}`,
  );
  await runtimeLoopback.close();
  runtimeLoopback = null;

  step(
    "an MCP user: exactly the mcp README's install line in an empty directory, its twenty lines",
  );
  const mcpReadme = join(root, 'packages', 'mcp', 'README.md');
  const mcpInstall = readmeInstallLine(mcpReadme);
  const mcpExample = readmeBlock(mcpReadme, '## Twenty lines', 'ts');
  const mcpUnlisted = importedPackages(mcpExample).filter(
    (name) => !mcpInstall.names.includes(name),
  );
  if (mcpUnlisted.length > 0) {
    fail(
      `the mcp README's example imports ${mcpUnlisted.join(', ')}, which its install line does not name`,
    );
  }
  const mcpApp = join(work, 'mcp-app');
  mkdirSync(mcpApp, { recursive: true });
  writeJson(join(mcpApp, 'package.json'), {
    name: 'release-check-mcp-app',
    private: true,
    version: '1.0.0',
  });
  await run('npm', ['install', ...mcpInstall.names], {
    cwd: mcpApp,
    env: npmEnv,
    timeoutMs: 240_000,
  });
  note(`${mcpInstall.line}: installed`);
  // the example's stdio server: the mcp package's test server, on the SDK the package installed
  const mcpFixtures = join(root, 'packages', 'mcp', 'test', 'fixtures');
  cpSync(join(mcpFixtures, 'tools-server.mjs'), join(mcpApp, 'tools-server.mjs'));
  cpSync(join(mcpFixtures, 'stdio-server.mjs'), join(mcpApp, 'weather-server.mjs'));
  const { mcpToolName } = await import(
    pathToFileURL(join(mcpApp, 'node_modules', '@yourtool', 'mcp', 'dist', 'index.js')).href
  );
  runtimeLoopback = await conformanceKit.startLoopbackServer();
  runtimeLoopback.enqueue(
    anthropicStream([
      {
        type: 'tool_use',
        id: 'toolu_rc_1',
        name: mcpToolName('weather', 'Weather.GetForecast'),
        input: {},
      },
      JSON.stringify({ city: 'Oslo' }),
    ]),
    anthropicStream([{ type: 'text', text: '' }, 'No rain in Oslo.']),
  );
  writeFileSync(join(mcpApp, 'example.mts'), checkedExample(mcpExample, 'esm'));
  await runExample(
    join(mcpApp, 'example.mts'),
    {
      ANTHROPIC_API_KEY: 'sk-ant-release-check-0000000000',
      ANTHROPIC_BASE_URL: runtimeLoopback.url,
      WEATHER_TOKEN: 'release-check-token',
    },
    countChecks(mcpExample),
  );
  const toolResult = JSON.stringify(runtimeLoopback.requests[1]?.body ?? null);
  if (!toolResult.includes('Sunny in Oslo')) {
    fail(`the MCP tool's result did not reach the second request: ${toolResult.slice(0, 500)}`);
  }
  note(
    `ESM: ${countChecks(mcpExample)} checks; the stdio server's tool answered through the runtime`,
  );
  await runtimeLoopback.close();
  runtimeLoopback = null;

  if (!excluded.has('@yourtool/ai-sdk')) {
    step('an AI SDK user: @yourtool/ai-sdk and ai from the registry, generateText on our adapter');
    await checkAiSdkUser({ work, npmEnv, run, note, fail });
  }

  step('a third-party adapter: examples/third-party-adapter on the published core + conformance');
  const thirdParty = join(work, 'third-party-adapter');
  cpSync(join(root, 'examples', 'third-party-adapter'), thirdParty, {
    recursive: true,
    filter: (source) => !/\/(node_modules|dist)$/.test(source),
  });
  const manifest = readJson(join(thirdParty, 'package.json'));
  const conformance = packages.find((p) => p.name === '@yourtool/conformance');
  // what an author does on a new release: move the ranges to it
  for (const field of ['peerDependencies', 'devDependencies']) {
    for (const pkg of [core, conformance]) {
      if (manifest[field]?.[pkg.name]) manifest[field][pkg.name] = `^${pkg.version}`;
    }
  }
  writeJson(join(thirdParty, 'package.json'), manifest);
  await run('npm', ['install'], { cwd: thirdParty, env: npmEnv, timeoutMs: 240_000 });
  await run('npm', ['run', 'typecheck'], { cwd: thirdParty, env: npmEnv, timeoutMs: 120_000 });
  const suite = await run('npm', ['test'], {
    cwd: thirdParty,
    env: { ...npmEnv, NO_COLOR: '1', FORCE_COLOR: '0' },
    timeoutMs: 180_000,
  });
  const summary = /Tests\s+(.*)/.exec(suite)?.[1] ?? '(no summary)';
  note(`type check passed; conformance: ${summary.trim()}`);

  step('a core patch release: one copy of @yourtool/core after the upgrade');
  writeFileSync(
    join(repo, '.changeset', 'release-check-core-patch.md'),
    '---\n"@yourtool/core": patch\n---\n\nRelease check: a patch release of core alone.\n',
  );
  await run('pnpm', ['exec', 'changeset', 'version'], { cwd: repo, env: ciEnv, timeoutMs: 60_000 });
  const bumped = publishedPackages(repo);
  const newCore = bumped.find((p) => p.name === '@yourtool/core').version;
  const alsoBumped = bumped.filter(
    (p) =>
      p.name !== '@yourtool/core' && p.version !== packages.find((q) => q.name === p.name)?.version,
  );
  note(
    `@yourtool/core ${core.version} → ${newCore}; dependents bumped with it: ${
      alsoBumped.map((p) => p.name).join(', ') || 'none'
    }`,
  );
  for (const pkg of [bumped.find((p) => p.name === '@yourtool/core'), ...alsoBumped]) {
    const dir = join(repo, 'packages', pkg.dir);
    await run('pnpm', ['run', 'build'], { cwd: dir, env: ciEnv, timeoutMs: 120_000 });
    await run('pnpm', ['publish', '--no-git-checks', '--access', 'public'], {
      cwd: dir,
      env: npmEnv,
      timeoutMs: 60_000,
    });
  }
  await run('npm', ['install', `@yourtool/core@${newCore}`], {
    cwd: app,
    env: npmEnv,
    timeoutMs: 180_000,
  });
  await run('npm', ['install'], { cwd: app, env: npmEnv, timeoutMs: 180_000 });
  // every installed copy, deduplicated by path (a peer satisfied by the top-level copy is one)
  const ls = await run('npm', ['ls', '@yourtool/core', '--all', '--parseable'], {
    cwd: app,
    env: npmEnv,
    timeoutMs: 60_000,
    stdoutOnly: true,
  });
  const copies = ls
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.endsWith(join('node_modules', '@yourtool', 'core')));
  const versions = copies.map((dir) => readJson(join(dir, 'package.json')).version);
  if (copies.length !== 1 || versions[0] !== newCore) {
    fail(
      `expected exactly one @yourtool/core@${newCore}, npm ls shows ${copies.length}: ${copies
        .map((dir, i) => `${versions[i]} at ${dir}`)
        .join(', ')}`,
    );
  }
  note(`npm ls @yourtool/core: one copy, ${newCore}`);
  await runExample(join(app, 'example.cjs'), exampleEnv, countChecks(cjs));
  note('the CommonJS example still runs after the upgrade');

  passed = true;
  step(`release check passed in ${elapsed()}`);
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(
      `\nrelease check FAILED after ${elapsed()}: ${error instanceof CheckFailed ? error.message : inspect(error)}\n`,
    );
    if (process.env.KEEP_RELEASE_CHECK !== '1') {
      process.stderr.write('(set KEEP_RELEASE_CHECK=1 to keep the temporary files)\n');
    }
    process.exit(1);
  },
);
