export * from './reasoning.js';
export * from './request.js';
export * from './request-order.js';
export * from './required-reasoning.js';
export * from './response.js';
