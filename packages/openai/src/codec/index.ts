export * from '../responses/codec.js';
export * from './content-parts.js';
export * from './errors.js';
export * from './message.js';
export * from './request.js';
export * from './response.js';
export * from './stop-sequence.js';
export * from './stream.js';
