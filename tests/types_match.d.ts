// Type-level helpers for tests/test_types_match.py: what a declared type says that the real data never showed.
//
// Unproduced<Declared, Produced, Path> is the union of the paths ("check.results[].problem.place") of every key the
// declared type names (optional ones too) that no produced value has, or never when each one turned up at least once.
// Produced is the union of the real values' types (each written `as const`); a record's values (Record<string, X>)
// are held to X all together, an array's elements to its element type.

type Obj<P> = Exclude<Extract<P, object>, readonly unknown[]>;
type KeysOf<P> = P extends unknown ? keyof P : never;
type Prop<P, K extends PropertyKey> = P extends unknown ? (K extends keyof P ? P[K] : never) : never;
type ValuesOf<P> = P extends unknown ? P[keyof P] : never;
type ElementOf<P> = P extends readonly (infer E)[] ? E : never;
type KnownKeys<D> = keyof { [K in keyof D as string extends K ? never : number extends K ? never : K]: D[K] } & string;

export type Unproduced<D, P, Path extends string> = D extends readonly (infer E)[]
  ? Unproduced<E, ElementOf<Extract<P, readonly unknown[]>>, `${Path}[]`>
  : D extends (...args: never[]) => unknown
    ? never
    : D extends object
      ? [KnownKeys<D>] extends [never]
        ? string extends keyof D
          ? Unproduced<D[keyof D], ValuesOf<Obj<P>>, `${Path}.*`>
          : never
        : {
            [K in KnownKeys<D>]-?: K extends KeysOf<Obj<P>>
              ? Unproduced<NonNullable<D[K]>, Prop<Obj<P>, K>, `${Path}.${K}`>
              : `${Path}.${K}`;
          }[KnownKeys<D>]
      : never;

/** Fails the type check, naming the paths, unless there are none. */
export type NoneLeft<T extends never> = T;
