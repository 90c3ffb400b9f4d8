// The canonical request → Baidu Wenxin (千帆 v1 "wenxinworkshop") request bodies, and the model →
// endpoint table of its URLs. Pure.
import { RelayError } from "../../errors";
import { isObj, type Obj } from "@/lib/obj";
import { alternatingTurns, clampOpen, num, plainMessages, stopList, str, textOf } from "../convert-shared";

/** Catalogue model → the last segment of its wenxinworkshop URL. Others: the lower-cased name. */
const ENDPOINTS: Record<string, string> = {
  "ERNIE-4.0-8K": "completions_pro",
  "ERNIE-4.0": "completions_pro",
  "ERNIE-Bot-4": "completions_pro",
  "ERNIE-Bot": "completions",
  "ERNIE-3.5-8K": "completions",
  "ERNIE-Bot-turbo": "eb-instant",
  "ERNIE-Lite-8K-0922": "eb-instant",
  "ERNIE-Speed": "ernie_speed",
  "ERNIE-Speed-8K": "ernie_speed",
  "ERNIE-Bot-8K": "ernie_bot_8k",
  "ERNIE-Lite-8K-0308": "ernie-lite-8k",
  "BLOOMZ-7B": "bloomz_7b1",
  "bge-large-zh": "bge_large_zh",
  "bge-large-en": "bge_large_en",
  "tao-8k": "tao_8k",
};

export function baiduEndpoint(model: string): string {
  return Object.hasOwn(ENDPOINTS, model) ? ENDPOINTS[model]! : model.toLowerCase();
}

const invalidMessages = (message: string) =>
  new RelayError(400, message, { type: "invalid_request_error", code: "invalid_messages", param: "messages" });

/** Whether the request uses function calling (tools offered, or tool turns in the conversation). */
function usesFunctions(body: Obj): boolean {
  if (Array.isArray(body.tools) && body.tools.length > 0) return true;
  const messages = Array.isArray(body.messages) ? body.messages : [];
  return messages.some(
    (m) => isObj(m) && (m.role === "tool" || m.role === "function" || (Array.isArray(m.tool_calls) && m.tool_calls.length > 0)),
  );
}

/**
 * Turns with ERNIE's function calling: an assistant `tool_calls` turn → `function_call {name,
 * arguments}` (one per turn, as ERNIE answers), a `tool` result → `{role: "function", name,
 * content}` in the user's place (its name found from the call it answers). Roles alternate
 * (user|function, assistant); consecutive user or plain assistant turns are merged.
 */
function functionTurns(body: Obj): { system: string; turns: Obj[] } {
  plainMessages(body); // the same refusal of an empty or missing list
  const system: string[] = [];
  const turns: Obj[] = [];
  const names = new Map<string, string>();
  for (const m of body.messages as unknown[]) {
    if (!isObj(m)) continue;
    const last = turns.at(-1);
    const text = textOf(m.content);
    if (m.role === "system" || m.role === "developer") {
      system.push(text);
    } else if (m.role === "assistant") {
      const calls = Array.isArray(m.tool_calls) ? m.tool_calls.filter(isObj) : [];
      if (calls.length > 1) throw invalidMessages("Wenxin takes one function call per assistant turn");
      if (!last) continue;
      if (calls.length === 1) {
        const fn = isObj(calls[0]!.function) ? calls[0]!.function : {};
        const name = str(fn.name) ?? "";
        names.set(str(calls[0]!.id) ?? "", name);
        turns.push({ role: "assistant", content: text, function_call: { name, arguments: str(fn.arguments) ?? "{}" } });
      } else if (last.role === "assistant" && !last.function_call) last.content = `${last.content}\n\n${text}`;
      else turns.push({ role: "assistant", content: text });
    } else if (m.role === "tool" || m.role === "function") {
      if (last?.role !== "assistant" || !isObj(last.function_call))
        throw invalidMessages("a tool result must follow the assistant's function call");
      const name = str(m.name) ?? names.get(str(m.tool_call_id) ?? "") ?? str(last.function_call.name) ?? "";
      turns.push({ role: "function", name, content: text });
    } else if (last?.role === "user") last.content = `${last.content}\n\n${text}`;
    else turns.push({ role: "user", content: text });
  }
  const end = turns.at(-1)?.role;
  if (end !== "user" && end !== "function") throw invalidMessages("the conversation must end with a user or tool message");
  return { system: system.join("\n"), turns };
}

/** OpenAI's `tools` → ERNIE's `functions`; `tool_choice` naming one → ERNIE's `tool_choice`; "none" sends none. */
function applyFunctions(body: Obj, out: Obj): void {
  const tools = Array.isArray(body.tools) ? body.tools.filter((t): t is Obj => isObj(t) && isObj(t.function)) : [];
  if (tools.length === 0 || body.tool_choice === "none") return;
  out.functions = tools.map((t) => {
    const fn = t.function as Obj;
    const f: Obj = { name: str(fn.name) ?? "", description: str(fn.description) ?? "" };
    f.parameters = isObj(fn.parameters) ? fn.parameters : { type: "object", properties: {} };
    return f;
  });
  const choice = body.tool_choice;
  if (isObj(choice) && isObj(choice.function) && typeof choice.function.name === "string")
    out.tool_choice = { type: "function", function: { name: choice.function.name } };
}

/**
 * Chat body: system text in `system`, the turns alternating user/assistant (merged when not),
 * temperature in (0, 1], penalty_score (from presence_penalty) in [1, 2]; tools as ERNIE's
 * `functions`.
 */
export function toBaiduChatBody(body: Obj, stream: boolean): Obj {
  const { system, turns } = usesFunctions(body) ? functionTurns(body) : alternatingTurns(plainMessages(body));
  const out: Obj = { messages: turns };
  if (system) out.system = system;
  applyFunctions(body, out);
  const temperature = clampOpen(num(body.temperature), 0, 1.01);
  if (temperature !== undefined) out.temperature = Math.min(temperature, 1);
  const topP = num(body.top_p);
  if (topP !== undefined) out.top_p = Math.min(Math.max(topP, 0), 1);
  const presence = num(body.presence_penalty);
  if (presence !== undefined) out.penalty_score = Math.min(Math.max(presence, 1), 2);
  const stop = stopList(body.stop);
  if (stop) out.stop = stop;
  const maxTokens = num(body.max_completion_tokens) ?? num(body.max_tokens);
  if (maxTokens !== undefined) out.max_output_tokens = maxTokens;
  const user = str(body.user);
  if (user) out.user_id = user;
  if (stream) out.stream = true;
  return out;
}

/** Embeddings body: `{input: [strings]}` (token-id inputs are not accepted by Baidu). */
export function toBaiduEmbeddingBody(body: Obj): Obj {
  const input = body.input;
  const list = typeof input === "string" ? [input] : Array.isArray(input) && input.every((s) => typeof s === "string") ? input : null;
  if (!list || list.length === 0) {
    throw new RelayError(400, "input must be a string or an array of strings", {
      type: "invalid_request_error",
      code: "invalid_input",
      param: "input",
    });
  }
  const out: Obj = { input: list };
  const user = str(body.user);
  if (user) out.user_id = user;
  return out;
}
