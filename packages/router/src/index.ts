/**
 * @yourtool/router: the model registry, the routing chain with capability validation against
 * the history, provider availability, and hot-reloaded routing rules.
 *
 * @packageDocumentation
 */
export type { AdapterFactory, ModelRegistryOptions } from './adapter-setup.js';
export * from './availability.js';
export type { AvailabilityListener } from './availability-listener.js';
export { CAPABILITIES_NOT_DETECTED } from './candidate-check.js';
export type { PrepareOptions, PrepareReport } from './capability-detection.js';
export * from './check-routing-config.js';
export * from './errors.js';
export * from './message-pattern.js';
export * from './registry.js';
export * from './registry-config.js';
export * from './requirements.js';
export * from './route-types.js';
export * from './router.js';
export * from './routing-config.js';
export * from './shared-availability.js';
