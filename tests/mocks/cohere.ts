// Cohere on loopback: `/v2/chat` (whole or SSE, tool calls when tools are sent), `/v1/rerank` and `/v2/embed`,
// replaying recorded answers; a wrong Bearer key gets Cohere's 401 `{message}`.
import { readFileSync } from "node:fs";
import { json, type ReplayServer, sse, startReplayServer } from "./replay-server";

const fixture = (name: string) => readFileSync(`lib/relay/providers/cohere/__fixtures__/${name}`, "utf8");

export async function startCohereMock(key: string): Promise<ReplayServer> {
  return startReplayServer((req) => {
    if (req.headers.authorization !== `Bearer ${key}`) return json(401, fixture("error-401.json"));
    if (req.path === "/v1/rerank") return json(200, fixture("rerank.json"));
    if (req.path === "/v2/embed") return json(200, fixture("embed.json"));
    if (req.path !== "/v2/chat") return json(404, '{"message":"Not Found"}');
    if (req.body.stream) return sse(fixture(req.body.tools ? "tool-call.sse.txt" : "chat.sse.txt"));
    return json(200, fixture("chat.json"));
  });
}
