// What Baidu Wenxin sends back, the fields the converters read: a chat answer (and each stream
// event, the same with `is_end`), an embeddings answer, and the `{error_code, error_msg}` of an
// error, which comes as a 200.
import { z } from "zod";
import { finite, maybe, type Unchecked } from "../wire";

const BaiduErrorFields = { error_code: finite, error_msg: maybe(z.string()) };

export const BaiduChat = z
  .object({
    ...BaiduErrorFields,
    id: maybe(z.string()),
    result: maybe(z.string()),
    is_truncated: z.unknown().optional(),
    need_clear_history: z.unknown().optional(),
    finish_reason: z.unknown().optional(),
    function_call: maybe(z.object({ name: maybe(z.string()), arguments: maybe(z.string()), thoughts: maybe(z.string()) }).loose()),
    // Read by usageOf, which the stream shares.
    usage: z.unknown().optional(),
  })
  .loose();

/** A stream event: the chat answer's fields and `is_end`. Not run per event (see ../wire.ts). */
export const BaiduStreamEvent = BaiduChat.extend({ is_end: maybe(z.boolean()) }).loose();
export type BaiduEvent = Unchecked<z.output<typeof BaiduStreamEvent>>;

const EmbeddingItem = z.object({ embedding: z.array(z.unknown()).catch([]), index: finite }).loose();

export const BaiduEmbeddings = z
  .object({
    ...BaiduErrorFields,
    // An item that is no object still counts (an empty vector at its place).
    data: z.array(EmbeddingItem.nullable().catch(null)).catch([]),
    usage: maybe(z.object({ prompt_tokens: finite, total_tokens: finite }).loose()),
  })
  .loose();
