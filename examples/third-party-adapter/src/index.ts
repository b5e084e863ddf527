/**
 * An example third-party adapter: the Acme chat API (Mistral-style) on fetch and
 * `@yourtool/core` alone.
 *
 * @packageDocumentation
 */
export { ACME_DEFAULT_BASE_URL, AcmeAdapter } from './adapter.js';
export { ACME, ACME_TOOL_ERROR_PREFIX, ACME_TOOL_ID_RULES, roundTripAcmeContent } from './codec.js';
export { acmeCapabilities } from './models.js';
