import { registerHooks } from 'node:module';

/** Records the npm packages whose modules load from now on (by their node_modules folder). */
export function recordLoadedPackages(): Set<string> {
  const packages = new Set<string>();
  registerHooks({
    load(url, context, nextLoad) {
      const name = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1];
      if (name) packages.add(name);
      return nextLoad(url, context);
    },
  });
  return packages;
}
