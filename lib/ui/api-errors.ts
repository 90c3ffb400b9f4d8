// What the console shows for a failed /api call (spec §8). The server answers errors with the
// `{success:false, message}` envelope and a matching HTTP status; infrastructure errors (a proxy in
// front, a crashed process) may come without an envelope.

export const TEXT = {
  expired: "未登录或登录已过期，请重新登录！",
  tooMany: "请求次数过多，请稍后再试！",
  internal: "服务器内部错误，请联系管理员！",
  demo: "本站仅作演示之用，无服务端！",
  unreachable: "无法正常连接至服务器！",
} as const;

export type FailureOutcome = { kind: "expired" } | { kind: "notify"; level: "error" | "info"; text: string };

/**
 * `httpStatus` 0 means the request never got an answer. `message` is the envelope message when the
 * body was an envelope. `redirectOn401` is false for calls made while logging in or registering,
 * where a 401 is a wrong answer, not an expired session.
 */
export function describeFailure(httpStatus: number, message: string | null, redirectOn401 = true): FailureOutcome {
  if (httpStatus === 401 && redirectOn401) return { kind: "expired" };
  if (httpStatus === 500) return { kind: "notify", level: "error", text: TEXT.internal };
  if (httpStatus === 405) return { kind: "notify", level: "info", text: TEXT.demo };
  if (message) return { kind: "notify", level: "error", text: message };
  if (httpStatus === 0) return { kind: "notify", level: "error", text: TEXT.unreachable };
  if (httpStatus === 401) return { kind: "notify", level: "error", text: TEXT.expired };
  if (httpStatus === 429) return { kind: "notify", level: "error", text: TEXT.tooMany };
  return { kind: "notify", level: "error", text: `错误：${httpStatus >= 400 ? `HTTP ${httpStatus}` : "响应格式错误"}` };
}
