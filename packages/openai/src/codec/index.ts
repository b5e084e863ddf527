export * from '../responses/codec.js';
export * from './errors.js';
export * from './request.js';
export * from './response.js';
export * from './stream.js';
