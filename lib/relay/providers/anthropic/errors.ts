// Anthropic's error bodies and error events → OpenAI's error body.
import { isObj, type Obj } from "@/lib/obj";

/** `{"type":"error","error":{type,message}}` (or a bare `{message}`) → OpenAI's error body. */
export function openAIErrorOf(upstream: unknown): Obj {
  const err = isObj(upstream) && isObj(upstream.error) ? upstream.error : isObj(upstream) ? upstream : {};
  const type = typeof err.type === "string" && err.type !== "" ? err.type : "upstream_error";
  const message = typeof err.message === "string" && err.message !== "" ? err.message : "upstream returned an error";
  return { error: { message, type, param: null, code: type } };
}
