// AI Proxy's knowledge base on loopback: `/api/library/ask` with `Api-Key`, replaying recorded
// answers; an unknown library id gets the 200 `{success: false, errCode, errMsg}` it answers with.
import { readFileSync } from "node:fs";
import { json, type ReplayServer, sse, startReplayServer } from "./replay-server";

const fixture = (name: string) => readFileSync(`lib/relay/providers/aiproxy-library/__fixtures__/${name}`, "utf8");

export async function startAIProxyMock(key: string, libraryId: string): Promise<ReplayServer> {
  return startReplayServer((req) => {
    if (req.headers["api-key"] !== key)
      return json(200, '{"success":false,"answer":"","documents":[],"errCode":401,"errMsg":"Api-Key 无效"}');
    if (req.path !== "/api/library/ask") return json(404, '{"success":false,"errCode":404,"errMsg":"Not Found"}');
    if (req.body.libraryId !== libraryId) return json(200, fixture("error.json"));
    return req.body.stream ? sse(fixture("stream.sse.txt")) : json(200, fixture("answer.json"));
  });
}
