import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { bedrockSetupProblem } from '../src/credentials.js';
import { type AwsSandbox, awsSandbox } from './aws-env.js';
import { transportFor } from './transport-context.js';

/**
 * `setupProblem()` without a network call: which credential sources and Regions count, read
 * from the environment and temporary shared config files only.
 */

let sandbox: AwsSandbox;
beforeEach(() => {
  sandbox = awsSandbox();
});
afterEach(() => sandbox.dispose());

const notOnEc2 = () => false;
const problem = (input: Parameters<typeof bedrockSetupProblem>[0] = {}) =>
  bedrockSetupProblem({ onEc2: notOnEc2, ...input });

describe('credentials', () => {
  it('with nothing set, names every source and the Region, and where to set them', () => {
    const text = problem();
    expect(text).toMatch(/^no AWS credentials: /);
    for (const name of [
      'api_key',
      'AWS_BEARER_TOKEN_BEDROCK',
      'AWS_ACCESS_KEY_ID',
      'AWS_WEB_IDENTITY_TOKEN_FILE',
      'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI',
      'profile "default"',
      join(sandbox.dir, 'config'),
      join(sandbox.dir, 'credentials'),
      'no AWS Region',
      'options.region',
      'AWS_REGION',
    ])
      expect(text).toContain(name);
  });

  const ready: Array<[string, Record<string, string>]> = [
    [
      'a Bedrock API key in AWS_BEARER_TOKEN_BEDROCK',
      { AWS_BEARER_TOKEN_BEDROCK: 'ABSKexample0000' },
    ],
    [
      'environment keys',
      { AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret000000' },
    ],
    [
      'web identity',
      { AWS_WEB_IDENTITY_TOKEN_FILE: '/var/run/token', AWS_ROLE_ARN: 'arn:aws:iam::1:role/r' },
    ],
    ['ECS container credentials', { AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: '/v2/credentials/x' }],
    [
      'EKS Pod Identity',
      { AWS_CONTAINER_CREDENTIALS_FULL_URI: 'http://169.254.170.23/v1/credentials' },
    ],
  ];
  it.each(ready)('%s with AWS_REGION → ready', (_, variables) => {
    for (const [name, value] of Object.entries(variables)) vi.stubEnv(name, value);
    vi.stubEnv('AWS_REGION', 'us-west-2');
    expect(problem()).toBeNull();
  });

  it('a configured api_key and options.region → ready', () => {
    expect(problem({ apiKey: 'ABSKexample0000', region: 'eu-west-1' })).toBeNull();
  });

  it('half a pair is not a credential, and its value is never quoted', () => {
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIAIOSFODNN7EXAMPLE');
    vi.stubEnv('AWS_ROLE_ARN', 'arn:aws:iam::123456789012:role/secret-role-name');
    vi.stubEnv('AWS_REGION', 'us-west-2');
    const text = problem();
    expect(text).toMatch(/^no AWS credentials/);
    expect(text).not.toContain('AKIAIOSFODNN7EXAMPLE');
    expect(text).not.toContain('secret-role-name');
  });

  it('a profile with keys in the shared credentials file, Region in the config file → ready', () => {
    sandbox.writeCredentials('[default]\naws_access_key_id = AKIDX\naws_secret_access_key = s\n');
    sandbox.writeConfig('[default]\nregion = eu-north-1\n');
    expect(problem()).toBeNull();
  });

  it('an SSO profile named by AWS_PROFILE → ready; options.profile wins over AWS_PROFILE', () => {
    sandbox.writeConfig(
      '[profile dev]\nsso_session = corp\nregion = us-east-2\n\n[profile empty]\nregion = us-east-2\n',
    );
    vi.stubEnv('AWS_PROFILE', 'dev');
    expect(problem()).toBeNull();
    const text = problem({ profile: 'empty' });
    expect(text).toMatch(/^no AWS credentials: .*profile "empty"/);
    expect(text).not.toMatch(/no AWS Region/);
  });

  it('a profile that only sets a Region is not a credential', () => {
    sandbox.writeConfig('[default]\nregion = us-east-1\n');
    expect(problem()).toMatch(/^no AWS credentials/);
  });

  it('a role profile (role_arn with source_profile) and a credential_process profile count', () => {
    sandbox.writeConfig(
      '[profile role]\nrole_arn = arn:aws:iam::1:role/r\nsource_profile = base\nregion = us-east-1\n[profile proc]\ncredential_process = /bin/creds\nregion = us-east-1\n',
    );
    expect(problem({ profile: 'role' })).toBeNull();
    expect(problem({ profile: 'proc' })).toBeNull();
  });

  it('an EC2 instance role counts on EC2 unless the metadata service is disabled', () => {
    vi.stubEnv('AWS_REGION', 'us-east-1');
    vi.stubEnv('AWS_EC2_METADATA_DISABLED', 'false');
    expect(problem({ onEc2: () => true })).toBeNull();
    expect(problem({ onEc2: () => false })).toMatch(/^no AWS credentials/);
    vi.stubEnv('AWS_EC2_METADATA_DISABLED', 'true');
    expect(problem({ onEc2: () => true })).toMatch(/^no AWS credentials/);
  });
});

describe('Region', () => {
  it('AWS_DEFAULT_REGION alone is not a Region (the JavaScript SDK does not read it)', () => {
    vi.stubEnv('AWS_BEARER_TOKEN_BEDROCK', 'ABSKexample0000');
    vi.stubEnv('AWS_DEFAULT_REGION', 'us-east-1');
    const text = problem();
    expect(text).toMatch(/^no AWS Region: .*AWS_DEFAULT_REGION is not read/);
    expect(text).not.toMatch(/credentials/);
  });

  it('the Region of the profile named by options.profile counts', () => {
    vi.stubEnv('AWS_BEARER_TOKEN_BEDROCK', 'ABSKexample0000');
    sandbox.writeConfig('[profile eu]\nregion = eu-west-3\n');
    expect(problem({ profile: 'eu' })).toBeNull();
    expect(problem()).toMatch(/no AWS Region/);
  });
});

describe("the transport's setupProblem", () => {
  it('reads the adapter config (api_key, options.region, options.profile) and the environment', () => {
    expect(transportFor({}).setupProblem()).toMatch(/no AWS credentials.*no AWS Region/);
    expect(
      transportFor({ api_key: 'ABSKexample0000', options: { region: 'us-east-1' } }).setupProblem(),
    ).toBeNull();
    sandbox.writeCredentials(
      '[ci]\naws_access_key_id = AKIDX\naws_secret_access_key = s\nregion = ca-central-1\n',
    );
    expect(transportFor({ options: { profile: 'ci' } }).setupProblem()).toBeNull();
  });
});
