// The database handle's types, apart from lib/db/index.ts: what index.ts runs when it opens the
// database (migrations, the root account) names them without importing index.ts back.
import type { PrismaClient } from "@/lib/db/generated/sqlite/client";

/** Every provider's client has the SQLite client's API; the SQLite one stands for all three. */
export type Db = PrismaClient;
export type DbKind = "sqlite" | "postgresql" | "mysql";
