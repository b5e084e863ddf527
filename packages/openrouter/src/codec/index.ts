export * from './errors.js';
export * from './reasoning.js';
export * from './request.js';
export * from './response.js';
export * from './usage.js';
