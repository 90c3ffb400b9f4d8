// zod pieces for a vendor's wire shapes (each converting vendor's api.ts). The converters used to
// read answers by hand, field by field, tolerating whatever came: a field of another type read as
// absent, a list's odd items were skipped. These keep exactly that, so an answer parses once and
// a vendor's surprise never turns into a failed parse that the hand checks would have let through.
import { z } from "zod";
import { isObj, type Obj } from "@/lib/obj";

/** A field that reads as absent when missing or of another type. */
export const maybe = <T extends z.ZodType>(schema: T) => schema.optional().catch(undefined);

/** A list of `item`s: anything else reads as empty, items that do not parse are dropped. */
export function listOf<T extends z.ZodType>(item: T) {
  return z
    .array(z.unknown())
    .catch([])
    .transform((items) => {
      const out: z.output<T>[] = [];
      for (const v of items) {
        const r = item.safeParse(v);
        if (r.success) out.push(r.data);
      }
      return out;
    });
}

/** A finite number, else absent. */
export const finite = maybe(z.number().refine(Number.isFinite));

/**
 * A stream event as the converter sees it: a JSON object whose fields the schema names, each still
 * to be checked by hand. Events are not run through zod (that is per chunk, on the hot path); this
 * type keeps the fields read tied to the schema's.
 */
export type Unchecked<T> = Obj & { [K in keyof T]?: unknown };

/** Any JSON object, kept as it came (same object, same key order) for answers passed on as they are. */
export const anyObject = z.custom<Obj>(isObj);
