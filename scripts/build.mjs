// Builds everything `npm start` serves: the Prisma clients, the Next production build, and the
// server entry (server.ts and the lib/ code it loads) as plain JavaScript, one chunk per role.
import { execFileSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import esbuild from "esbuild";
import { buildFingerprint, SERVER_BUNDLE } from "./fingerprint.mjs";

const root = path.resolve(import.meta.dirname, "..");
const require = createRequire(import.meta.url);
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", NODE_ENV: "production" };

execFileSync(process.execPath, [path.join(root, "scripts/prisma-generate.mjs")], { cwd: root, env, stdio: "inherit" });
execFileSync(process.execPath, [require.resolve("next/dist/bin/next"), "build"], { cwd: root, env, stdio: "inherit" });
// The server entry is prebuilt, not transpiled at run time: no TypeScript loader (and its
// compile cache) in every process, ~100 MB less in all (bench/README.md). Packages stay in
// node_modules. Split into chunks: ESM imports load eagerly, so from one file every process
// loaded every package any role uses (Next and OpenTelemetry in the relay workers, Prisma in the
// primary); each role now loads only its own chunks.
const outdir = path.dirname(path.join(root, SERVER_BUNDLE));
rmSync(outdir, { recursive: true, force: true });
await esbuild.build({
  // body-worker: the relay's thread for large request bodies (lib/relay/body-thread.ts finds it here).
  entryPoints: {
    [path.basename(SERVER_BUNDLE, ".mjs")]: path.join(root, "server.ts"),
    "body-worker": path.join(root, "lib/relay/body-worker.ts"),
  },
  outdir,
  outExtension: { ".js": ".mjs" },
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  splitting: true,
  platform: "node",
  format: "esm",
  target: `node${process.versions.node.split(".")[0]}`,
  packages: "external",
  sourcemap: true,
  logLevel: "warning",
});
writeFileSync(path.join(root, ".next/qiao-fingerprint"), buildFingerprint());
