// `npm start`: build when the sources changed since the last build, then serve console and relay.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { buildFingerprint, SERVER_BUNDLE } from "./fingerprint.mjs";

const root = path.resolve(import.meta.dirname, "..");
const marker = path.join(root, ".next/qiao-fingerprint");
const fresh = existsSync(marker) && existsSync(path.join(root, SERVER_BUNDLE)) && readFileSync(marker, "utf8") === buildFingerprint();
if (!fresh) {
  // One line in the server log's shape (lib/log.ts); the build's own output follows as it prints it.
  const line = {
    level: "info",
    time: new Date().toISOString(),
    pid: process.pid,
    role: "launcher",
    msg: "building: first start or sources changed",
  };
  console.log(JSON.stringify(line));
  execFileSync(process.execPath, [path.join(root, "scripts/build.mjs")], { cwd: root, stdio: "inherit" });
}
// server.ts as built by scripts/build.mjs. Its source map is written beside it: run with
// NODE_OPTIONS=--enable-source-maps for stack traces in TypeScript lines (~60 MB more in all).
const child = spawn(process.execPath, [path.join(root, SERVER_BUNDLE)], {
  cwd: root,
  stdio: "inherit",
  env: { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" },
});
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => child.kill(sig));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
