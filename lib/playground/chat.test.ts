import { describe, expect, it } from "vitest";
import {
  buildRequest,
  type ChatMessage,
  chatReducer,
  DEFAULT_SYSTEM_PROMPT,
  isBusy,
  pickModel,
  readEvent,
  refusalText,
} from "@/lib/playground/chat";

const send = (messages: ChatMessage[], content: string, n: number) =>
  chatReducer(messages, { type: "send", userId: `u${n}`, assistantId: `a${n}`, content });

describe("chatReducer: loading, then incomplete while streaming, then complete or error", () => {
  it("adds the user's message and a loading reply", () => {
    const messages = send([], "hi", 1);
    expect(messages).toEqual([
      { id: "u1", role: "user", content: "hi", status: "complete" },
      { id: "a1", role: "assistant", content: "", status: "loading" },
    ]);
    expect(isBusy(messages)).toBe(true);
  });

  it("accumulates deltas as incomplete, then completes", () => {
    let messages = send([], "hi", 1);
    messages = chatReducer(messages, { type: "delta", id: "a1", text: "Hel" });
    expect(messages[1]).toMatchObject({ content: "Hel", status: "incomplete" });
    messages = chatReducer(messages, { type: "delta", id: "a1", text: "lo" });
    expect(messages[1]).toMatchObject({ content: "Hello", status: "incomplete" });
    messages = chatReducer(messages, { type: "complete", id: "a1" });
    expect(messages[1]).toMatchObject({ content: "Hello", status: "complete" });
    expect(isBusy(messages)).toBe(false);
  });

  it("an empty delta keeps a loading reply loading", () => {
    const messages = chatReducer(send([], "hi", 1), { type: "delta", id: "a1", text: "" });
    expect(messages[1].status).toBe("loading");
  });

  it("keeps the text received before an error and appends the error data", () => {
    let messages = chatReducer(send([], "hi", 1), { type: "delta", id: "a1", text: "partial" });
    messages = chatReducer(messages, { type: "error", id: "a1", error: "upstream broke" });
    expect(messages[1]).toEqual({ id: "a1", role: "assistant", content: "partial", status: "error", error: "upstream broke" });
  });

  it("a finished reply never changes again (a [DONE] or a late delta after an error)", () => {
    let messages = chatReducer(send([], "hi", 1), { type: "error", id: "a1", error: "boom" });
    const after = chatReducer(chatReducer(messages, { type: "complete", id: "a1" }), { type: "delta", id: "a1", text: "x" });
    expect(after[1]).toEqual(messages[1]);
    messages = chatReducer(send([], "hi", 2), { type: "complete", id: "a2" });
    expect(chatReducer(messages, { type: "error", id: "a2", error: "late" })[1].status).toBe("complete");
  });

  it("only touches the reply it names, and clear empties the conversation", () => {
    let messages = chatReducer(send([], "one", 1), { type: "complete", id: "a1" });
    messages = send(messages, "two", 2);
    messages = chatReducer(messages, { type: "delta", id: "a2", text: "B" });
    expect(messages.map((m) => m.status)).toEqual(["complete", "complete", "complete", "incomplete"]);
    expect(chatReducer(messages, { type: "clear" })).toEqual([]);
  });
});

describe("buildRequest (spec §7 body)", () => {
  const settings = { group: "vip", model: "gpt-4o-mini", temperature: 0.3, maxTokens: null, systemPrompt: DEFAULT_SYSTEM_PROMPT };

  it("sends the system prompt first, the conversation, stream true, model, group and temperature", () => {
    let messages = send([], "hi", 1);
    messages = chatReducer(messages, { type: "delta", id: "a1", text: "Hello" });
    messages = chatReducer(messages, { type: "complete", id: "a1" });
    messages = send(messages, "more", 2);
    expect(buildRequest(settings, messages)).toEqual({
      messages: [
        { role: "system", content: DEFAULT_SYSTEM_PROMPT },
        { role: "user", content: "hi" },
        { role: "assistant", content: "Hello" },
        { role: "user", content: "more" },
      ],
      stream: true,
      model: "gpt-4o-mini",
      group: "vip",
      temperature: 0.3,
    });
  });

  it("adds max_tokens when set, leaves out an empty system prompt and failed or empty replies", () => {
    let messages = chatReducer(send([], "hi", 1), { type: "error", id: "a1", error: "boom" });
    messages = chatReducer(send(messages, "again", 2), { type: "complete", id: "a2" });
    messages = send(messages, "third", 3);
    const body = buildRequest({ ...settings, maxTokens: 256, systemPrompt: "  " }, messages);
    expect(body.max_tokens).toBe(256);
    expect(body.messages).toEqual([
      { role: "user", content: "hi" },
      { role: "user", content: "again" },
      { role: "user", content: "third" },
    ]);
  });
});

describe("readEvent", () => {
  it("reads choices[0].delta.content, [DONE], error events and ignores the rest", () => {
    expect(readEvent(JSON.stringify({ choices: [{ index: 0, delta: { content: "Hi" } }] }))).toEqual({ kind: "delta", text: "Hi" });
    expect(readEvent(JSON.stringify({ choices: [{ index: 0, delta: { role: "assistant", content: "" } }] }))).toEqual({ kind: "other" });
    expect(readEvent(JSON.stringify({ choices: [], usage: { prompt_tokens: 3 } }))).toEqual({ kind: "other" });
    expect(readEvent("[DONE]")).toEqual({ kind: "done" });
    expect(readEvent(JSON.stringify({ error: { message: "overloaded", type: "server_error" } }))).toEqual({
      kind: "error",
      error: "overloaded",
    });
    expect(readEvent(JSON.stringify({ error: { type: "x" } }))).toEqual({ kind: "error", error: '{"error":{"type":"x"}}' });
    expect(readEvent("not json")).toEqual({ kind: "error", error: "not json" });
  });
});

describe("refusalText", () => {
  it("gives the spec's expired-session text on 401 and the relay's message otherwise", () => {
    expect(refusalText(401, JSON.stringify({ error: { message: "whatever" } }))).toBe("未登录或登录已过期，请重新登录！");
    expect(
      refusalText(404, JSON.stringify({ error: { message: "当前分组 x 下对于模型 y 无可用渠道", type: "invalid_request_error" } })),
    ).toBe("当前分组 x 下对于模型 y 无可用渠道");
    expect(refusalText(403, JSON.stringify({ success: false, message: "用户已被封禁" }))).toBe("用户已被封禁");
    expect(refusalText(502, "<html>Bad Gateway</html>")).toBe("<html>Bad Gateway</html>");
    expect(refusalText(500, "")).toBe("HTTP 500");
  });
});

describe("pickModel (spec §9 default gpt-4o-mini)", () => {
  it("keeps the current model, else gpt-4o-mini when offered, else the first", () => {
    expect(pickModel(["a", "gpt-4o-mini", "b"], "b")).toBe("b");
    expect(pickModel(["a", "gpt-4o-mini"], "")).toBe("gpt-4o-mini");
    expect(pickModel(["a", "gpt-4o-mini"], "gone")).toBe("gpt-4o-mini");
    expect(pickModel(["x", "y"], "")).toBe("x");
    expect(pickModel([], "y")).toBe("");
  });
});
