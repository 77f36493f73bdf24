export * from './bus.js';
export * from './envelope.js';
export * from './errors.js';
export * from './events/index.js';
export * from './hooks.js';
export * from './type-glob.js';
export * from './validate.js';
export * from './session.js';
