import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { vi } from 'vitest';

/** Every variable the adapter or the SDK's credential and Region chain reads. */
export const AWS_VARIABLES = [
  'AWS_BEARER_TOKEN_BEDROCK',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_CREDENTIAL_EXPIRATION',
  'AWS_PROFILE',
  'AWS_DEFAULT_PROFILE',
  'AWS_REGION',
  'AWS_DEFAULT_REGION',
  'AWS_WEB_IDENTITY_TOKEN_FILE',
  'AWS_ROLE_ARN',
  'AWS_ROLE_SESSION_NAME',
  'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI',
  'AWS_CONTAINER_CREDENTIALS_FULL_URI',
  'AWS_CONTAINER_AUTHORIZATION_TOKEN',
  'AWS_AUTH_SCHEME_PREFERENCE',
  'AWS_MAX_ATTEMPTS',
  'AWS_ENDPOINT_URL',
  'AWS_ENDPOINT_URL_BEDROCK_RUNTIME',
] as const;

/** A clean AWS environment in a temporary directory, for one test. */
export interface AwsSandbox {
  /** The temporary directory (the shared config and credentials files live here). */
  dir: string;
  /** Writes the shared config file (`AWS_CONFIG_FILE`). */
  writeConfig(text: string): void;
  /** Writes the shared credentials file (`AWS_SHARED_CREDENTIALS_FILE`). */
  writeCredentials(text: string): void;
  /** Restores the environment and removes the directory. */
  dispose(): void;
}

/**
 * Clears every AWS variable, points the shared files at an empty temporary directory and turns
 * the instance metadata service off, so nothing on the machine running the tests counts and no
 * test can reach the network for credentials.
 */
export function awsSandbox(): AwsSandbox {
  for (const name of AWS_VARIABLES) vi.stubEnv(name, undefined);
  const dir = mkdtempSync(join(tmpdir(), 'bedrock-aws-'));
  const config = join(dir, 'config');
  const credentials = join(dir, 'credentials');
  vi.stubEnv('AWS_CONFIG_FILE', config);
  vi.stubEnv('AWS_SHARED_CREDENTIALS_FILE', credentials);
  vi.stubEnv('AWS_EC2_METADATA_DISABLED', 'true');
  return {
    dir,
    writeConfig: (text) => writeFileSync(config, text),
    writeCredentials: (text) => writeFileSync(credentials, text),
    dispose: () => {
      vi.unstubAllEnvs();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
