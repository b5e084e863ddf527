import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LoopbackServer, startLoopbackServer } from '@yourtool/conformance';
import { AuthError, createMessage, newRequestId } from '@yourtool/core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { VERTEX_SDK_PACKAGE, VertexAnthropicAdapter, VertexSdkMissingError } from '../src/index.js';

/**
 * `setupProblem()` of Claude on Vertex AI: project, region and Google credentials, each named
 * when missing, read from the config, the environment and credential files only (no network);
 * and the optional Vertex SDK, named with the command to install it when it is not there.
 */

const VARIABLES = [
  'ANTHROPIC_VERTEX_PROJECT_ID',
  'GOOGLE_CLOUD_PROJECT',
  'GCLOUD_PROJECT',
  'CLOUD_ML_REGION',
  'GOOGLE_CLOUD_LOCATION',
  'GOOGLE_APPLICATION_CREDENTIALS',
  'ANTHROPIC_VERTEX_BASE_URL',
];

let server: LoopbackServer;
let home: string;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.reset();
  for (const name of VARIABLES) vi.stubEnv(name, undefined);
  // an empty home and gcloud directory: no credentials of the machine running the tests count
  home = mkdtempSync(join(tmpdir(), 'vertex-setup-'));
  vi.stubEnv('HOME', home);
  vi.stubEnv('CLOUDSDK_CONFIG', join(home, 'gcloud'));
});
afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  rmSync(home, { recursive: true, force: true });
});

const vertex = (options: Record<string, unknown> = {}, runtime = {}) =>
  new VertexAnthropicAdapter({ base_url: server.url, max_retries: 0, options }, runtime);

const ask = () => ({
  request_id: newRequestId(),
  model: 'vertex-anthropic:claude-haiku-4-5@20251001',
  max_output_tokens: 64,
  messages: [
    createMessage({
      session_id: 'sess_setup',
      role: 'user',
      content: [{ type: 'text', text: 'hi' }],
    }),
  ],
});

const writeJson = (file: string, value: unknown) => {
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, JSON.stringify(value));
};

describe('setupProblem', () => {
  it('names the missing project, region and credentials, and a call fails auth sending nothing', async () => {
    const fetchSpy = vi.spyOn(globalThis, 'fetch');
    const adapter = vertex();
    const problem = adapter.setupProblem();
    expect(problem).toContain(
      'no Google Cloud project: set options.project, or ANTHROPIC_VERTEX_PROJECT_ID',
    );
    expect(problem).toContain('no Vertex AI region: set options.region, or CLOUD_ML_REGION');
    expect(problem).toContain('no Google credentials: set GOOGLE_APPLICATION_CREDENTIALS');
    expect(problem).toContain(join(home, 'gcloud', 'application_default_credentials.json'));
    const error = await adapter.complete(ask()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect((error as AuthError).message).toMatch(/^vertex-anthropic: no Google Cloud project/);
    expect((error as AuthError).retryable).toBe(false);
    expect(server.requests).toHaveLength(0);
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it('is ready with a credentials file (its project_id) and CLOUD_ML_REGION', () => {
    const file = join(home, 'sa.json');
    writeJson(file, { type: 'service_account', project_id: 'file-project' });
    vi.stubEnv('GOOGLE_APPLICATION_CREDENTIALS', file);
    vi.stubEnv('CLOUD_ML_REGION', 'us-east5');
    expect(vertex().setupProblem()).toBeNull();
  });

  it('names the credentials when GOOGLE_APPLICATION_CREDENTIALS points at no file', () => {
    vi.stubEnv('GOOGLE_APPLICATION_CREDENTIALS', join(home, 'missing.json'));
    const problem = vertex({ project: 'p', region: 'global' }).setupProblem();
    expect(problem).toMatch(/^no Google credentials/);
    expect(problem).not.toContain('project');
  });

  it("takes gcloud's application default credentials and their quota project", () => {
    writeJson(join(home, 'gcloud', 'application_default_credentials.json'), {
      type: 'authorized_user',
      quota_project_id: 'adc-project',
    });
    expect(vertex({ region: 'europe-west1' }).setupProblem()).toBeNull();
    // without a region only the region is missing
    expect(vertex().setupProblem()).toMatch(/^no Vertex AI region/);
  });

  it('takes metadata-server credentials only when opted in, without calling it', () => {
    const fetchSpy = vi.spyOn(globalThis, 'fetch');
    vi.stubEnv('GOOGLE_CLOUD_PROJECT', 'env-project');
    vi.stubEnv('CLOUD_ML_REGION', 'global');
    expect(vertex().setupProblem()).toMatch(/^no Google credentials/);
    expect(vertex({ metadata_credentials: true }).setupProblem()).toBeNull();
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it('takes the project of a handed-over auth client when none is configured', () => {
    const authClient = {
      getRequestHeaders: async () => new Headers(),
      projectId: 'client-project',
    };
    expect(vertex({ region: 'us-east5' }, { authClient }).setupProblem()).toBeNull();
    expect(vertex({ region: 'us-east5' }).setupProblem()).toMatch(/^no Google Cloud project/);
  });

  it('is ready with an auth client or an access token', () => {
    const authClient = { getRequestHeaders: async () => new Headers() };
    const options = { project: 'p', region: 'us-east5' };
    expect(vertex(options, { authClient }).setupProblem()).toBeNull();
    const withToken = new VertexAnthropicAdapter({ api_key: 'ya29.token-000000', options });
    expect(withToken.setupProblem()).toBeNull();
  });
});

describe('the optional Vertex SDK', () => {
  const ready = { project: 'p', region: 'us-east5', metadata_credentials: true };
  const missing = { vertexSdkModule: '@anthropic-ai/vertex-sdk-not-installed' };

  it('when absent, setupProblem names the package to install', () => {
    expect(vertex(ready, missing).setupProblem()).toBe(
      `vertex-anthropic: Claude on Vertex AI needs the "${VERTEX_SDK_PACKAGE}" package: npm install ${VERTEX_SDK_PACKAGE}`,
    );
    expect(vertex(ready).setupProblem()).toBeNull();
  });

  it('when absent, a call fails with VertexSdkMissingError, not retried, sending nothing', async () => {
    const error = await vertex(ready, missing)
      .complete(ask())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VertexSdkMissingError);
    expect((error as VertexSdkMissingError).packageName).toBe('@anthropic-ai/vertex-sdk');
    expect((error as VertexSdkMissingError).error_class).toBe('other');
    expect((error as VertexSdkMissingError).retryable).toBe(false);
    expect((error as VertexSdkMissingError).attempts).toBe(1);
    expect(server.requests).toHaveLength(0);
  });
});

describe('models as Vertex spells them', () => {
  it("take the Claude model table's capabilities by the name before @date", () => {
    const adapter = vertex({ project: 'p', region: 'global' });
    const haiku = adapter.capabilitiesFor('vertex-anthropic:claude-haiku-4-5@20251001');
    expect([haiku.max_context_tokens, haiku.max_output_tokens]).toEqual([200_000, 64_000]);
    const opus = adapter.capabilitiesFor('vertex-anthropic:claude-opus-4-5@20251101');
    expect(opus.max_output_tokens).toBe(64_000);
    expect(adapter.capabilities.max_context_tokens).toBe(200_000);
    // a model the table does not know gets the smallest common limits
    expect(adapter.capabilitiesFor('vertex-anthropic:claude-next@20270101').max_output_tokens).toBe(
      8_192,
    );
  });
});
