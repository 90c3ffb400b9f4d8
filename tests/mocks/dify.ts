// A Dify chat app on loopback: `/v1/chat-messages`, blocking or streaming, replaying recorded
// answers; a wrong app key gets Dify's 401 `{code, message, status}`.
import { readFileSync } from "node:fs";
import { json, type ReplayServer, sse, startReplayServer } from "./replay-server";

export const difyFixture = (name: string) => readFileSync(`lib/relay/providers/dify/__fixtures__/${name}`, "utf8");

export async function startDifyMock(key: string): Promise<ReplayServer> {
  return startReplayServer((req) => {
    if (req.headers.authorization !== `Bearer ${key}`) {
      return json(401, '{"code":"unauthorized","message":"Access token is invalid","status":401}');
    }
    if (req.path !== "/v1/chat-messages") return json(404, '{"code":"not_found","message":"Not Found","status":404}');
    return req.body.response_mode === "streaming" ? sse(difyFixture("stream.sse.txt")) : json(200, difyFixture("blocking.json"));
  });
}
