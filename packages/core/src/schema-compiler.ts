import type { ValidateFunction } from 'ajv';

/** What the compiler needs of an Ajv instance (draft-07 `Ajv` or `Ajv2020`). */
export interface AjvLike {
  compile(schema: object): ValidateFunction;
  removeSchema(schema: object): unknown;
}

/**
 * Compiled JSON Schema checks, owned here rather than by Ajv: keyed by the schema's JSON text,
 * so an application that builds an equal schema object for every call compiles it once, and
 * bounded (the least recently used dropped), so a long-running process does not keep every
 * schema it ever saw. Ajv's own cache, keyed by the schema object and never emptied, is cleared
 * of each schema once it is compiled.
 */
export class SchemaCompiler {
  /** The Ajv instance, or what builds it on the first compile (so importing builds none). */
  #ajv: AjvLike | (() => AjvLike);
  readonly #limit: number;
  readonly #byText = new Map<string, ValidateFunction>();
  /** The same checks by schema object, which spares serializing a schema seen before. */
  #byObject = new WeakMap<object, ValidateFunction>();

  /**
   * `ajv`: the instance, or a function that builds it when the first schema is compiled.
   * `limit` bounds how many compiled schemas are kept.
   */
  constructor(ajv: AjvLike | (() => AjvLike), limit = 256) {
    this.#ajv = ajv;
    this.#limit = limit;
  }

  /** How many compiled schemas are kept now. */
  get size(): number {
    return this.#byText.size;
  }

  /** The compiled check of `schema`; throws what Ajv throws for a schema it cannot compile. */
  compile(schema: object): ValidateFunction {
    const known = this.#byObject.get(schema);
    if (known) return known;
    const text = JSON.stringify(schema);
    let check = this.#byText.get(text);
    if (check) {
      // most recently used last
      this.#byText.delete(text);
    } else {
      const ajv = this.#instance();
      check = ajv.compile(schema);
      ajv.removeSchema(schema);
    }
    this.#byText.set(text, check);
    this.#byObject.set(schema, check);
    if (this.#byText.size > this.#limit) this.#evictOldest();
    return check;
  }

  #instance(): AjvLike {
    if (typeof this.#ajv === 'function') this.#ajv = this.#ajv();
    return this.#ajv;
  }

  #evictOldest(): void {
    const oldest = this.#byText.keys().next();
    if (oldest.done) return;
    this.#byText.delete(oldest.value);
    // an object whose check was dropped would still find it here: start the object map anew
    this.#byObject = new WeakMap();
  }
}
