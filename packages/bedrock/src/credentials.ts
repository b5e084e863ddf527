import { readFileSync } from 'node:fs';
import { type AwsEnvironment, readSharedProfile, type SharedProfile } from './shared-config.js';

/** What {@link bedrockSetupProblem} reads besides the environment. */
export interface BedrockSetupInput {
  /** The adapter config's `api_key` (a Bedrock API key). */
  apiKey?: string | null | undefined;
  /** `options.region`. */
  region?: string | undefined;
  /** `options.profile`. */
  profile?: string | undefined;
  /** The environment (default `process.env`). */
  env?: AwsEnvironment;
  /**
   * Whether this host is an EC2 instance, whose instance role the SDK's chain may use (default:
   * {@link runsOnEc2}, which reads local files only).
   */
  onEc2?: () => boolean;
}

const present = (value: string | null | undefined): value is string =>
  typeof value === 'string' && value.trim() !== '';

/** Keys of a shared config profile that let the SDK's chain find credentials. */
const PROFILE_CREDENTIAL_KEYS = [
  'aws_access_key_id',
  'credential_process',
  'sso_session',
  'sso_start_url',
  'role_arn',
  'web_identity_token_file',
  'login_session',
];

/** Local files that say "this is an EC2 instance" (Nitro's DMI data, Xen's hypervisor id). */
const EC2_MARKERS: ReadonlyArray<[string, RegExp]> = [
  ['/sys/devices/virtual/dmi/id/sys_vendor', /^Amazon EC2/],
  ['/sys/devices/virtual/dmi/id/board_asset_tag', /^i-[0-9a-f]{8,}/],
  ['/sys/hypervisor/uuid', /^ec2/i],
];

/**
 * Whether this host is an EC2 instance, read from local files only (the DMI vendor or asset tag,
 * or Xen's hypervisor id), never from the instance metadata service: an instance role can only
 * be used there, and a network probe from `setupProblem()` would stall every other machine.
 */
export function runsOnEc2(): boolean {
  return EC2_MARKERS.some(([path, pattern]) => {
    try {
      return pattern.test(readFileSync(path, 'utf8').trim());
    } catch {
      return false;
    }
  });
}

function profileHasCredentials(profile: SharedProfile): boolean {
  const sections = [profile.config, profile.credentials];
  return sections.some(
    (section) => section !== undefined && PROFILE_CREDENTIAL_KEYS.some((k) => present(section[k])),
  );
}

/**
 * The credential source the SDK's default chain (or the Bedrock API key) would use, named, or
 * `undefined` when none is there: checked on the environment and the shared files only.
 */
function credentialSource(
  input: BedrockSetupInput,
  env: AwsEnvironment,
  profile: () => SharedProfile,
) {
  if (present(input.apiKey)) return 'api_key';
  if (present(env.AWS_BEARER_TOKEN_BEDROCK)) return 'AWS_BEARER_TOKEN_BEDROCK';
  if (present(env.AWS_ACCESS_KEY_ID) && present(env.AWS_SECRET_ACCESS_KEY)) return 'environment';
  if (present(env.AWS_WEB_IDENTITY_TOKEN_FILE) && present(env.AWS_ROLE_ARN)) return 'web identity';
  if (
    present(env.AWS_CONTAINER_CREDENTIALS_RELATIVE_URI) ||
    present(env.AWS_CONTAINER_CREDENTIALS_FULL_URI)
  )
    return 'container';
  if (profileHasCredentials(profile())) return 'profile';
  if (
    env.AWS_EC2_METADATA_DISABLED?.trim().toLowerCase() !== 'true' &&
    (input.onEc2 ?? runsOnEc2)()
  )
    return 'instance role';
  return undefined;
}

/**
 * Why no Bedrock call can be made with this configuration and environment, or `null` when one
 * may. Reads the environment and the shared AWS files only: no network call, never the instance
 * metadata service. The text names what is missing and which options or variables would supply
 * it, never a value.
 *
 * A credential is there when one of these is: `api_key` in the config or
 * `AWS_BEARER_TOKEN_BEDROCK` (a Bedrock API key); `AWS_ACCESS_KEY_ID` with
 * `AWS_SECRET_ACCESS_KEY`; `AWS_WEB_IDENTITY_TOKEN_FILE` with `AWS_ROLE_ARN`;
 * `AWS_CONTAINER_CREDENTIALS_RELATIVE_URI` or `_FULL_URI` (ECS, EKS Pod Identity); the profile
 * (`options.profile`, `AWS_PROFILE`, else `default`) in the shared config file
 * (`AWS_CONFIG_FILE`, `~/.aws/config`) or credentials file (`AWS_SHARED_CREDENTIALS_FILE`,
 * `~/.aws/credentials`) with keys, SSO, a role or a credential process; or an EC2 instance
 * role, assumed on a host whose local DMI files say it is an EC2 instance unless
 * `AWS_EC2_METADATA_DISABLED=true` (whether a role is attached cannot be known without asking
 * the metadata service, so a call there may still fail `auth`).
 *
 * A Region is needed too: `options.region`, `AWS_REGION`, or the profile's `region`.
 */
export function bedrockSetupProblem(input: BedrockSetupInput = {}): string | null {
  const env = input.env ?? process.env;
  // the shared files are read only when the environment does not settle it: the codec asks
  // before every call, and a configured key and Region need no disk read
  let read: SharedProfile | undefined;
  const profile = () => {
    read ??= readSharedProfile(input.profile, env);
    return read;
  };
  const problems: string[] = [];
  if (credentialSource(input, env, profile) === undefined) {
    problems.push(
      `no AWS credentials: set api_key in the adapter config or AWS_BEARER_TOKEN_BEDROCK (a Bedrock API key), AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_WEB_IDENTITY_TOKEN_FILE and AWS_ROLE_ARN, AWS_CONTAINER_CREDENTIALS_RELATIVE_URI or AWS_CONTAINER_CREDENTIALS_FULL_URI, or give profile "${profile().name}" credentials in ${profile().configPath} or ${profile().credentialsPath} (the profile is options.profile, else AWS_PROFILE)`,
    );
  }
  const region =
    input.region ?? env.AWS_REGION ?? profile().config?.region ?? profile().credentials?.region;
  if (!present(region)) {
    problems.push(
      `no AWS Region: set options.region in the adapter config, AWS_REGION, or region in profile "${profile().name}" of ${profile().configPath} (AWS_DEFAULT_REGION is not read by the JavaScript SDK)`,
    );
  }
  return problems.length === 0 ? null : problems.join('; ');
}
