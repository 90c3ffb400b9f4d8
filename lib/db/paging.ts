// One page of a console list, as every list route answers it and every list component reads it.

/** A page of rows: `page` counts from 1, `page_size` rows at most, `total` rows in all. */
export type Page<T> = { items: T[]; page: number; page_size: number; total: number };
