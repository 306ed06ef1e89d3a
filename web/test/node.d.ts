// The few parts of Node.js the unit tests use, typed for the checker (the project has no @types/node).

declare module "node:test" {
  type Body = () => void | Promise<void>;
  export function test(name: string, body: Body): Promise<void>;
  export function beforeEach(body: Body): void;
}

declare module "node:assert/strict" {
  interface Assert {
    ok(value: unknown, message?: string): asserts value;
    equal(actual: unknown, expected: unknown, message?: string): void;
    notEqual(actual: unknown, expected: unknown, message?: string): void;
    deepEqual(actual: unknown, expected: unknown, message?: string): void;
  }
  const assert: Assert;
  export default assert;
}

declare module "node:child_process" {
  export function execFileSync(
    file: string,
    args: string[],
    options: { cwd: string; encoding: "utf-8"; env: Record<string, string | undefined> },
  ): string;
}

declare module "node:fs" {
  export function existsSync(path: string): boolean;
}

declare module "node:url" {
  export function fileURLToPath(url: URL): string;
}

declare const process: { env: Record<string, string | undefined> };

declare module "node:module" {
  export function register(specifier: string): void;
}
