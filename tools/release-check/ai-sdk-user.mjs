// Step 4d of the release check: an AI SDK user. @yourtool/ai-sdk, @yourtool/anthropic,
// @yourtool/core and `ai` installed from the registry in an empty directory; our Anthropic
// adapter as an AI SDK model runs `generateText` against a loopback Messages API, and both entry
// points load from ESM and CommonJS.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const PACKAGES = ['@yourtool/ai-sdk', '@yourtool/anthropic', '@yourtool/core', 'ai'];

/** generateText on the published bridge, the request and the reply checked. */
const ESM_CALL = `import { createServer } from 'node:http';
import { AnthropicAdapter } from '@yourtool/anthropic';
import { createLanguageModel } from '@yourtool/ai-sdk/model';
import { ChatBridge } from '@yourtool/ai-sdk';
import { generateText } from 'ai';
if (typeof ChatBridge !== 'function') throw new Error('@yourtool/ai-sdk exports no ChatBridge');
const seen = [];
const server = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => { body += chunk; });
  req.on('end', () => {
    seen.push({ url: req.url, body: JSON.parse(body) });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({
      id: 'msg_release_check', type: 'message', role: 'assistant', model: 'claude-sonnet-4-6',
      content: [{ type: 'text', text: 'Hello from the bridge.' }],
      stop_reason: 'end_turn', stop_sequence: null,
      usage: { input_tokens: 7, output_tokens: 5 },
    }));
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const adapter = new AnthropicAdapter({
  api_key: 'sk-ant-release-check-0000000000',
  base_url: 'http://127.0.0.1:' + server.address().port,
  max_retries: 0,
});
try {
  const result = await generateText({
    model: createLanguageModel(adapter, { model: 'anthropic:claude-sonnet-4-6' }),
    prompt: 'Say hello.',
  });
  if (result.text !== 'Hello from the bridge.') throw new Error('text: ' + JSON.stringify(result.text));
  if (result.usage.inputTokens !== 7 || result.usage.outputTokens !== 5) {
    throw new Error('usage: ' + JSON.stringify(result.usage));
  }
  const [request] = seen;
  if (request?.url !== '/v1/messages' || request.body.model !== 'claude-sonnet-4-6') {
    throw new Error('request: ' + JSON.stringify(request).slice(0, 300));
  }
  if (typeof result.providerMetadata?.yourtool?.request_id !== 'string') {
    throw new Error('no providerMetadata.yourtool.request_id');
  }
  process.stdout.write('bridge-text=' + result.text + '\\n');
} finally {
  await adapter.close();
  server.close();
}
`;

/** The CommonJS entry points of the published package. */
const CJS_LOAD = `const root = require('@yourtool/ai-sdk');
const model = require('@yourtool/ai-sdk/model');
const adapter = require('@yourtool/ai-sdk/adapter');
const found = [typeof root.ChatBridge, typeof model.createLanguageModel, typeof adapter.AiSdkAdapter];
process.stdout.write('cjs=' + found.join(',') + '\\n');
`;

/**
 * In a new directory under `work`, installs the AI SDK user's packages from the registry and
 * runs the bridge once from ESM and loads it from CommonJS. `run`, `note` and `fail` are the
 * release check's own.
 */
export async function checkAiSdkUser({ work, npmEnv, run, note, fail }) {
  const app = join(work, 'ai-sdk-app');
  mkdirSync(app, { recursive: true });
  writeFileSync(
    join(app, 'package.json'),
    `${JSON.stringify({ name: 'release-check-ai-sdk-app', private: true, version: '1.0.0' })}\n`,
  );
  await run('npm', ['install', ...PACKAGES], { cwd: app, env: npmEnv, timeoutMs: 300_000 });
  note(`npm install ${PACKAGES.join(' ')}: installed`);
  writeFileSync(join(app, 'bridge.mjs'), ESM_CALL);
  const esm = await run(process.execPath, ['bridge.mjs'], { cwd: app, timeoutMs: 60_000 });
  if (!/bridge-text=Hello from the bridge\./.test(esm)) {
    fail(`generateText on the published bridge did not answer\n${esm.slice(-2000)}`);
  }
  writeFileSync(join(app, 'bridge.cjs'), CJS_LOAD);
  const cjs = await run(process.execPath, ['bridge.cjs'], { cwd: app, timeoutMs: 60_000 });
  if (!/cjs=function,function,function/.test(cjs)) {
    fail(`the CommonJS entry points of @yourtool/ai-sdk did not load\n${cjs.slice(-2000)}`);
  }
  note(
    'ESM: generateText answered through the Anthropic adapter; CJS: the three entry points load',
  );
}
