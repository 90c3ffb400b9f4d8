// Multi-key channels through the console API on the default database (SQLite); the same cases run
// on PostgreSQL in channel-multi-keys-pg.test.ts.
import { multiKeyApiCases } from "@/tests/api/channel-multi-keys.cases";

multiKeyApiCases("sqlite");
