import type { z } from 'zod';

/**
 * A zod schema built the first time it is used rather than when its module is evaluated: the
 * object returned stands for the schema (property reads, `instanceof`, zod's own use of it as a
 * part of another schema all reach the schema, built on the first of them and kept by this
 * object, its only owner). For the public schemas that an adapter's first call never touches
 * (stream events, responses, tool id map entries), so importing core does not build them.
 */
export function lazySchema<T extends z.ZodType>(build: () => T): T {
  let built: T | undefined;
  const schema = (): T => {
    built ??= build();
    return built;
  };
  const handler: ProxyHandler<T> = {
    get: (_target, key) => Reflect.get(schema(), key),
    set: (_target, key, value) => Reflect.set(schema(), key, value),
    has: (_target, key) => Reflect.has(schema(), key),
    deleteProperty: (_target, key) => Reflect.deleteProperty(schema(), key),
    ownKeys: () => Reflect.ownKeys(schema()),
    getOwnPropertyDescriptor: (_target, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(schema(), key);
      // the stand-in has no own properties: what it reports must be configurable
      if (descriptor) descriptor.configurable = true;
      return descriptor;
    },
    defineProperty: (_target, key, descriptor) => Reflect.defineProperty(schema(), key, descriptor),
    getPrototypeOf: () => Reflect.getPrototypeOf(schema()),
  };
  return new Proxy({} as T, handler);
}
