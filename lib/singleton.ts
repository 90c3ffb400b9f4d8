// One value per process. Next's bundles and the custom server (server.ts) each load a module
// separately, and dev reloads load it again, so module-level state would exist in several copies:
// two caches, two timers, two database pools. Keeping the value on globalThis under a registered
// symbol gives every copy the same one. Call it once at module level where you can: the lookup is
// cheap but not free, and hot paths should not repeat it.

/**
 * The value kept for `key` in this process, made by `make` on the first call. A value that can
 * change (a pool replaced after a failure, a timer started later) goes in a box object made here.
 */
export function processSingleton<T>(key: string, make: () => T): T {
  const slot = Symbol.for(`qiao.${key}`);
  const g = globalThis as unknown as Record<symbol, T | undefined>;
  if (!(slot in g)) g[slot] = make();
  return g[slot] as T;
}
