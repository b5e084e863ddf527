export * from './reasoning.js';
export * from './request.js';
export * from './response.js';
