import type { z } from 'zod';
import { loadZod, type ZodNamespace } from './load-zod.js';

/** What {@link lazySchema} knows of each stand-in it made: its builder, and its output for `{}`. */
interface StandIn {
  schema: () => z.ZodType;
  emptyOutput: (() => unknown) | undefined;
}

/** The stand-ins made by {@link lazySchema}, for {@link builtSchema} and {@link emptyOutputOf}. */
const standIns = new WeakMap<object, StandIn>();

/** Options of {@link lazySchema}. */
export interface LazySchemaOptions<T extends z.ZodType> {
  /**
   * What the schema gives for an empty object (`{}`), a fresh value each call: lets
   * `parseAdapterOptions` answer for options nobody set without building the schema (or loading
   * zod). Its tests hold it equal to the schema's own output.
   */
  emptyOutput?: () => z.output<T>;
}

/**
 * A zod schema built the first time it is used rather than when its module is evaluated, and zod
 * itself loaded then (decision 0198): the object returned stands for the schema (property reads,
 * `instanceof`, zod's own use of it as a part of another schema all reach the schema, built on
 * the first of them and kept by this object, its only owner). `build` receives zod's `z`.
 */
export function lazySchema<T extends z.ZodType>(
  build: (z: ZodNamespace) => T,
  options: LazySchemaOptions<T> = {},
): T {
  let built: T | undefined;
  const schema = (): T => {
    built ??= build(loadZod());
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
  const standIn = new Proxy({} as T, handler);
  standIns.set(standIn, { schema, emptyOutput: options.emptyOutput });
  return standIn;
}

/**
 * The schema a stand-in of {@link lazySchema} stands for (built now), or `schema` itself: for
 * building other schemas of it, so that their parses do not pass through the stand-in.
 */
export function builtSchema<T extends z.ZodType>(schema: T): T {
  return (standIns.get(schema)?.schema() as T | undefined) ?? schema;
}

/** What a stand-in's schema gives for `{}`, when it was told (see {@link LazySchemaOptions}). */
export function emptyOutputOf<T extends z.ZodType>(schema: T): (() => z.output<T>) | undefined {
  return standIns.get(schema)?.emptyOutput as (() => z.output<T>) | undefined;
}
