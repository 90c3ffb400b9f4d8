// `npm start`: build when the sources changed since the last build, then serve console and relay.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { buildFingerprint } from "./fingerprint.mjs";

const root = path.resolve(import.meta.dirname, "..");
const require = createRequire(import.meta.url);
const marker = path.join(root, ".next/qiao-fingerprint");
const fresh = existsSync(marker) && readFileSync(marker, "utf8") === buildFingerprint();
if (!fresh) {
  console.log("[qiao] building (first start or sources changed)…");
  execFileSync(process.execPath, [path.join(root, "scripts/build.mjs")], { cwd: root, stdio: "inherit" });
}
const tsxLoader = require.resolve("tsx");
const child = spawn(process.execPath, ["--import", tsxLoader, path.join(root, "server.ts")], {
  cwd: root,
  stdio: "inherit",
  env: { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" },
});
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => child.kill(sig));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
