// Builds everything `npm start` serves: the Prisma clients and the Next production build.
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { buildFingerprint } from "./fingerprint.mjs";

const root = path.resolve(import.meta.dirname, "..");
const require = createRequire(import.meta.url);
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", NODE_ENV: "production" };

execFileSync(process.execPath, [path.join(root, "scripts/prisma-generate.mjs")], { cwd: root, env, stdio: "inherit" });
execFileSync(process.execPath, [require.resolve("next/dist/bin/next"), "build"], { cwd: root, env, stdio: "inherit" });
writeFileSync(path.join(root, ".next/qiao-fingerprint"), buildFingerprint());
