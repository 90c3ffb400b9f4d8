// Builds everything `npm start` serves: the Prisma clients, the Next production build, and the
// server entry (server.ts and the lib/ code it loads) as one plain-JavaScript file.
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
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
// node_modules.
await esbuild.build({
  entryPoints: [path.join(root, "server.ts")],
  outfile: path.join(root, SERVER_BUNDLE),
  bundle: true,
  platform: "node",
  format: "esm",
  target: `node${process.versions.node.split(".")[0]}`,
  packages: "external",
  sourcemap: true,
  logLevel: "warning",
});
writeFileSync(path.join(root, ".next/qiao-fingerprint"), buildFingerprint());
