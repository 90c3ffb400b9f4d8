// What AI Proxy's knowledge base sends back, the fields the converters read: the `ask` answer
// `{success, answer, documents, errCode, errMsg}` (an error is `success` not true) and the stream
// events `{content, finish, documents?}`.
import { z } from "zod";
import { maybe, type Unchecked } from "../wire";

export const LibraryError = z
  .object({
    errCode: maybe(z.union([z.number(), z.string()])),
    errMsg: maybe(z.string()),
    message: maybe(z.string()),
  })
  .loose();

export const LibraryAnswer = LibraryError.extend({
  success: z.unknown().optional(),
  answer: maybe(z.string()),
  // Read by referenceList, which the stream's last event shares.
  documents: z.unknown().optional(),
}).loose();

/**
 * A stream event. Not run per event (the converter checks what it reads by hand); it types the
 * event and the tests hold the recorded stream to it.
 */
export const LibraryStreamEvent = z
  .object({ content: maybe(z.string()), finish: maybe(z.boolean()), documents: z.unknown().optional(), success: z.unknown().optional() })
  .loose();
export type LibraryEvent = Unchecked<z.output<typeof LibraryStreamEvent>>;
export type LibraryError = z.output<typeof LibraryError>;
