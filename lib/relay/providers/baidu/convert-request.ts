// The canonical request → Baidu Wenxin (千帆 v1 "wenxinworkshop") request bodies, and the model →
// endpoint table of its URLs. Pure.
import { RelayError } from "../../errors";
import { alternatingTurns, clampOpen, num, type Obj, plainMessages, stopList, str } from "../convert-shared";

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
  return ENDPOINTS[model] ?? model.toLowerCase();
}

/**
 * Chat body: system text in `system`, the turns alternating user/assistant (merged when not),
 * temperature in (0, 1], penalty_score (from presence_penalty) in [1, 2].
 */
export function toBaiduChatBody(body: Obj, stream: boolean): Obj {
  const { system, turns } = alternatingTurns(plainMessages(body));
  const out: Obj = { messages: turns };
  if (system) out.system = system;
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
