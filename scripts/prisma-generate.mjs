// Generates one Prisma client per supported database from prisma/schema.prisma.
// Runs offline: `prisma generate` never calls the schema engine, so the CLI is pointed at a
// harmless executable instead of downloading one.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(import.meta.dirname, "..");
const source = readFileSync(path.join(root, "prisma/schema.prisma"), "utf8");

/** Derives the schema text for one provider from the SQLite source of truth (or from `base`). */
export function schemaFor(provider, base = source) {
  // The derived files live one folder deeper (prisma/generated/), hence the extra "../".
  let text = base
    .replace('provider = "sqlite"', `provider = "${provider}"`)
    .replace('"../lib/db/generated/sqlite"', `"../../lib/db/generated/${provider}"`);
  if (provider === "mysql") {
    // MySQL maps String to VARCHAR(191); long values need TEXT.
    text = text.replace(/^(\s+\w+\s+String\??)([^\n]*?)\s*\/\/ @text$/gm, "$1$2 @db.Text // @text");
  }
  return text;
}

// Importing this module (scripts/db-migration.ts does, for schemaFor) must not generate anything.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();

function main() {
  const generatedDir = path.join(root, "prisma/generated");
  mkdirSync(generatedDir, { recursive: true });
  const require = createRequire(import.meta.url);
  let cli;
  try {
    cli = require.resolve("prisma/build/index.js");
  } catch {
    console.log("prisma CLI not installed (production install without dev deps?): skipping generate");
    process.exit(0);
  }
  const env = {
    ...process.env,
    PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY || "/bin/true",
    PRISMA_HIDE_UPDATE_MESSAGE: "1",
    CHECKPOINT_DISABLE: "1",
  };
  for (const provider of ["sqlite", "postgresql", "mysql"]) {
    const file = path.join(generatedDir, `${provider}.prisma`);
    const text = schemaFor(provider);
    writeFileSync(file, text);
    execFileSync(process.execPath, [cli, "generate", "--schema", file], { cwd: root, env, stdio: ["ignore", "ignore", "inherit"] });
  }
  if (!existsSync(path.join(root, "lib/db/generated/sqlite/client.ts"))) {
    console.error("prisma generate produced no client");
    process.exit(1);
  }
  console.log("prisma clients generated (sqlite, postgresql, mysql)");
}
