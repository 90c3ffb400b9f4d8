// Paging of console lists (spec §7): the page every list route answers and every list component
// reads, the clamps that turn a raw `p` / `page_size` into a window of rows, and the one count +
// findMany that fills a page. Client components import it, so it imports nothing server-only.
import { z } from "zod";
import { badRequest, notFound } from "@/lib/errors";
import { INT_COLUMN_MAX } from "@/lib/db/num";

/** A page of rows: `page` counts from 0, `page_size` rows at most, `total` rows in all. */
export type Page<T> = { items: T[]; page: number; page_size: number; total: number };

export const PAGE_MSG = { outOfRange: "页码超出范围" } as const;

export const DEFAULT_PAGE_SIZE = 10;
const MAX_PAGE_SIZE = 100;

/** The rows a page covers. */
export type PageWindow = { page: number; pageSize: number; skip: number };

/**
 * Clamped paging of the API: pages start at p=0; page_size is 1–100, 10 by default. A page that
 * starts past any possible row (ids are Int columns) is refused rather than sent to the database,
 * which cannot take such an offset.
 */
export function pageWindow(p: unknown, pageSize: unknown): PageWindow {
  const page = Math.max(0, Math.floor(Number(p)) || 0);
  const size = Math.min(MAX_PAGE_SIZE, Math.max(1, Math.floor(Number(pageSize)) || DEFAULT_PAGE_SIZE));
  const skip = page * size;
  if (skip > INT_COLUMN_MAX) throw badRequest(PAGE_MSG.outOfRange);
  return { page, pageSize: size, skip };
}

/** The last page a list page may render: the console clamps there instead of refusing. */
export const lastPage = (pageSize: number): number => Math.floor(INT_COLUMN_MAX / pageSize);

/** An explicit page_size=0 asks for the smallest page (absent still means the default). */
export const zeroIsOne = (n: number | undefined): number | undefined => (n === 0 ? 1 : n);

/**
 * One page of a table: the count and the page's rows in parallel, then the rows as the API shows
 * them. `rows` gets the window to spread into its findMany.
 */
export async function pagedFind<R, T>(
  q: { p?: unknown; page_size?: unknown },
  run: {
    count: () => Promise<number>;
    rows: (window: { skip: number; take: number }) => Promise<R[]>;
    view: (rows: R[]) => T[] | Promise<T[]>;
  },
): Promise<Page<T>> {
  const { page, pageSize, skip } = pageWindow(q.p, q.page_size);
  const [total, rows] = await Promise.all([run.count(), run.rows({ skip, take: pageSize })]);
  return { items: await run.view(rows), page, page_size: pageSize, total };
}

const positiveId = z.coerce.number().int().positive();

/** The `[id]` of a route: anything but a positive integer (up to `max`) is not found, with the entity's message. */
export function idParam(raw: string | undefined, missing: string, max = Number.MAX_SAFE_INTEGER): number {
  const parsed = positiveId.max(max).safeParse(raw);
  if (!parsed.success) throw notFound(missing);
  return parsed.data;
}
