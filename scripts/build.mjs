// Builds everything `npm start` serves: the Prisma clients, the Next production build, and the
// server entry (server.ts and the lib/ code it loads) as plain JavaScript, one chunk per role.
import { execFileSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import esbuild from "esbuild";
import { buildFingerprint, SERVER_BUNDLE } from "./fingerprint.mjs";
import { serverBundleOptions } from "./server-bundle.mjs";

const root = path.resolve(import.meta.dirname, "..");
const require = createRequire(import.meta.url);
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", NODE_ENV: "production" };

execFileSync(process.execPath, [path.join(root, "scripts/prisma-generate.mjs")], { cwd: root, env, stdio: "inherit" });
execFileSync(process.execPath, [require.resolve("next/dist/bin/next"), "build"], { cwd: root, env, stdio: "inherit" });
// The server entry is prebuilt, not transpiled at run time: no TypeScript loader (and its
// compile cache) in every process, ~100 MB less in all (bench/HISTORY.md); one chunk per role
// (scripts/server-bundle.mjs).
const outdir = path.dirname(path.join(root, SERVER_BUNDLE));
rmSync(outdir, { recursive: true, force: true });
await esbuild.build(serverBundleOptions(root, outdir));
writeFileSync(path.join(root, ".next/qiao-fingerprint"), buildFingerprint());
