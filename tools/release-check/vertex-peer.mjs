// Step 4d of the release check: Claude on Vertex AI from the published @yourtool/anthropic, whose
// `@anthropic-ai/vertex-sdk` is an optional peer npm does not install. Without it the adapter's
// setupProblem() must name the package; with it (the range the published package declares)
// VertexAnthropicAdapter must call Vertex's :rawPredict route on a loopback server through the
// real SDK. Runs in the adapters-app directory checkAdapterImports installed.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const SDK = '@anthropic-ai/vertex-sdk';

/** Prints what setupProblem() says before the peer is installed. */
const WITHOUT_PEER = `import { VertexAnthropicAdapter } from '@yourtool/anthropic';
const adapter = new VertexAnthropicAdapter({
  api_key: 'ya29.release-check-token',
  options: { project: 'release-check', region: 'us-east5' },
});
process.stdout.write('setup-problem=' + JSON.stringify(adapter.setupProblem()) + '\\n');
`;

/** Calls Claude on Vertex once against a loopback :rawPredict route and checks the request. */
const WITH_PEER = `import { createServer } from 'node:http';
import { VertexAnthropicAdapter } from '@yourtool/anthropic';
import { createMessage, newRequestId, newSessionId } from '@yourtool/core';
const seen = [];
const server = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => { body += chunk; });
  req.on('end', () => {
    seen.push({ url: req.url, body: JSON.parse(body), auth: req.headers.authorization });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({
      id: 'msg_release_check', type: 'message', role: 'assistant',
      model: 'claude-sonnet-4-5@20250929',
      content: [{ type: 'text', text: 'Hello from Vertex.' }],
      stop_reason: 'end_turn', stop_sequence: null,
      usage: { input_tokens: 5, output_tokens: 4 },
    }));
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const adapter = new VertexAnthropicAdapter({
  api_key: 'ya29.release-check-token',
  base_url: 'http://127.0.0.1:' + server.address().port + '/v1',
  max_retries: 0,
  options: { project: 'release-check', region: 'us-east5' },
});
try {
  const problem = adapter.setupProblem();
  if (problem !== null) throw new Error('setupProblem() with the SDK installed: ' + problem);
  const reply = await adapter.complete({
    request_id: newRequestId(),
    model: 'vertex-anthropic:claude-sonnet-4-5@20250929',
    max_output_tokens: 64,
    messages: [createMessage({ session_id: newSessionId(), role: 'user', content: [{ type: 'text', text: 'Say hello.' }] })],
  });
  const [request] = seen;
  const path = '/v1/projects/release-check/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict';
  if (request?.url !== path) throw new Error('request went to ' + request?.url + ', not ' + path);
  if (request.body.anthropic_version !== 'vertex-2023-10-16' || 'model' in request.body) {
    throw new Error('not a Vertex body: ' + JSON.stringify(request.body).slice(0, 300));
  }
  if (request.auth !== 'Bearer ya29.release-check-token') throw new Error('no bearer token sent');
  if (reply.content[0]?.text !== 'Hello from Vertex.') throw new Error('reply: ' + JSON.stringify(reply.content));
  process.stdout.write('vertex-call=' + reply.provider + '\\n');
} finally {
  await adapter.close();
  server.close();
}
`;

/**
 * In `app` (where @yourtool/anthropic and @yourtool/core are installed from the registry), checks
 * setupProblem() names the missing Vertex SDK, installs the range @yourtool/anthropic declares for
 * it, and makes one Vertex call. `run` and `fail` are the release check's own. Returns the range.
 */
export async function checkVertexPeer({ root, app, npmEnv, run, fail }) {
  const manifest = JSON.parse(
    readFileSync(join(root, 'packages', 'anthropic', 'package.json'), 'utf8'),
  );
  const range = manifest.peerDependencies?.[SDK];
  if (!range || manifest.peerDependenciesMeta?.[SDK]?.optional !== true) {
    fail(`@yourtool/anthropic no longer declares ${SDK} as an optional peer`);
  }
  writeFileSync(join(app, 'vertex-without-peer.mjs'), WITHOUT_PEER);
  const before = await run(process.execPath, ['vertex-without-peer.mjs'], {
    cwd: app,
    timeoutMs: 60_000,
  });
  if (!/setup-problem=".*npm install @anthropic-ai\/vertex-sdk/.test(before)) {
    fail(`without ${SDK}, setupProblem() should name it\n${before.slice(-1000)}`);
  }
  await run('npm', ['install', `${SDK}@${range}`], { cwd: app, env: npmEnv, timeoutMs: 300_000 });
  writeFileSync(join(app, 'vertex-with-peer.mjs'), WITH_PEER);
  const after = await run(process.execPath, ['vertex-with-peer.mjs'], {
    cwd: app,
    timeoutMs: 60_000,
  });
  if (!/vertex-call=vertex-anthropic/.test(after)) {
    fail(`Claude on Vertex did not answer through ${SDK}\n${after.slice(-2000)}`);
  }
  return range;
}
