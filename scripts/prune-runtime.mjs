// The Dockerfile's last build step, after `npm prune --omit=dev`: what the runtime image copies
// must not carry what only building and testing need.
// - npm keeps a devDependency that a production package names as an optional peer (prisma and
//   typescript, through @prisma/client's peerDependencies), and everything those depend on: the
//   lockfile marks them `devOptional`. Nothing the server loads needs them (the server bundle and
//   Next's output load only production packages; tests/deploy/docker-steps.test.ts starts the
//   server on a tree pruned this way).
// - .next/cache is the build's own cache.
import { existsSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";

const root = process.cwd();
const lock = JSON.parse(readFileSync(path.join(root, "package-lock.json"), "utf8"));
let removed = 0;
for (const [where, entry] of Object.entries(lock.packages ?? {})) {
  if (!where.startsWith("node_modules/") || !entry.devOptional) continue;
  const dir = path.join(root, where);
  if (!existsSync(dir)) continue;
  rmSync(dir, { recursive: true, force: true });
  removed++;
}
rmSync(path.join(root, ".next/cache"), { recursive: true, force: true });
console.log(`[prune-runtime] removed ${removed} packages needed only as dev dependencies or optional peers, and .next/cache`);
