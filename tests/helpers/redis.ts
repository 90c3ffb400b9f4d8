// The loopback Redis the tests share (shared/guide/environment.md). `npm test` runs the SQLite and
// the PostgreSQL vitest passes side by side, each running the same files: a server a test starts
// keys its counters by ids that both passes number from 1 ("qiao:lim:rpm:k:1"), and some files
// empty a whole database. So each pass has databases of its own: the PostgreSQL pass uses the
// database after the one a file names. Files name even numbers (0, 8, 10); bench/ uses 13.
export const REDIS_HOST = "127.0.0.1";
export const REDIS_PORT = 6379;

const PASS_OFFSET = process.env.QIAO_TEST_DB === "postgresql" ? 1 : 0;

/** This pass's Redis database for the even number `db` a test file names. */
export function testRedisDb(db: number): number {
  if (db % 2 !== 0 || db < 0 || db > 12) throw new Error(`Redis database ${db}: tests name an even one from 0 to 12`);
  return db + PASS_OFFSET;
}

/** The URL of this pass's Redis database `db` (see testRedisDb), on `port` (a proxy's) or Redis's own. */
export function testRedisUrl(db: number, port = REDIS_PORT): string {
  return `redis://${REDIS_HOST}:${port}/${testRedisDb(db)}`;
}
