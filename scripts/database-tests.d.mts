/** The test files vitest.config.ts includes, relative to the root, sorted. */
export function testFiles(): string[];
/** What makes a file depend on the main database: modules its imports may reach. */
export const DATABASE_ROOTS: string[];
/** The test files whose imports reach one of DATABASE_ROOTS, but for those tagged NAMES_ITS_DATABASES. */
export function databaseTestFiles(files?: string[]): string[];
/** The tag a test file that names every database it uses carries in a comment. */
export const NAMES_ITS_DATABASES: string;
/** Whether the test file carries NAMES_ITS_DATABASES. */
export function namesItsDatabases(file: string): boolean;
