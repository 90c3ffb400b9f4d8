// Builds the server bundle of another checkout into a directory of this one, so two builds can be
// loaded alternately with `--entry` (run.mjs, cpu.mjs, memory.mjs, tail.mjs) without rebuilding Next:
//   git worktree add /tmp/base <commit>   (copy lib/db/generated into it: it is not in git)
//   node bench/build-variant.mjs /tmp/base node_modules/.variants/base
//   node bench/tail.mjs --entry node_modules/.variants/base/server.mjs   …then --entry .next/qiao/server.mjs
// Not under .next: the next `node scripts/build.mjs` empties it.
// Packages stay external, so the bundle uses this checkout's node_modules.
import path from "node:path";
import * as esbuild from "esbuild";

const [source, out] = process.argv.slice(2);
if (!source || !out) {
  console.error("usage: node bench/build-variant.mjs <checkout> <out dir>");
  process.exit(2);
}
const { serverBundleOptions } = await import(path.resolve(source, "scripts/server-bundle.mjs"));
await esbuild.build(serverBundleOptions(path.resolve(source), path.resolve(out)));
console.log(`built ${out}`);
