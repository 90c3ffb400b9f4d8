/** The test files vitest.config.ts includes, relative to the root, sorted. */
export function testFiles(): string[];
/** What makes a file depend on the main database: modules its imports may reach. */
export const DATABASE_ROOTS: string[];
/** The test files whose imports reach one of DATABASE_ROOTS. */
export function databaseTestFiles(files?: string[]): string[];
