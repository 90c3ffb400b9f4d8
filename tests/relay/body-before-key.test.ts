// The relay door decides from the headers before it reads a body (issue 20.4): a bogus or
// disabled key is answered while the client is still uploading, a full budget of bodies in
// flight answers 503 with retry-after, and a client that cuts its upload off costs one log line.
// Real relay processes (the Node door `npm start` uses), real clients, a mock upstream.
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { getDb } from "@/lib/db";
import { TOKEN_STATUS } from "@/lib/tokens/status";
import { startOpenAIMock, type OpenAIMock } from "@/tests/mocks/openai-upstream";
import { startRelayProcess, type RelayProcess } from "@/tests/helpers/process";
import { clearRelayData, seedChannel, seedUser, startRelay } from "@/tests/helpers/relay";

const MODEL = "gpt-4o-mini";
const BIG = 60 * 1024 * 1024;
const BOGUS = `sk-${"x".repeat(48)}`;

type Answer = { status: number; headers: Record<string, string>; body: string };

/**
 * Sends the request line, the headers (declaring `declared` bytes) and the first `sent` bytes of
 * a chat body, then stops sending and waits for the answer: one that comes proves the relay did
 * not wait for the rest of the body. The socket stays open until the answer is read.
 */
function pausedUpload(port: number, path: string, headers: Record<string, string>, declared: number, sent: number) {
  const socket = net.connect(port, "127.0.0.1");
  const answer = new Promise<Answer>((resolve, reject) => {
    let raw = Buffer.alloc(0);
    socket.on("data", (d) => {
      raw = Buffer.concat([raw, d]);
      const end = raw.indexOf("\r\n\r\n");
      if (end < 0) return;
      const lines = raw.subarray(0, end).toString().split("\r\n");
      const hs: Record<string, string> = {};
      for (const line of lines.slice(1)) {
        const i = line.indexOf(":");
        hs[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
      }
      let body = raw.subarray(end + 4).toString();
      if (hs["content-length"] !== undefined) {
        if (Buffer.byteLength(body) < Number(hs["content-length"])) return;
      } else {
        // Chunked (the route-handler entry streams its answer): whole once the last chunk is in.
        if (!body.endsWith("0\r\n\r\n")) return;
        body = body.replace(/(?:^|\r\n)[0-9a-f]+\r\n/g, "").replace(/\r\n$/, "");
      }
      resolve({ status: Number(lines[0]!.split(" ")[1]), headers: hs, body });
    });
    socket.on("error", reject);
  });
  const head = `{"model":"${MODEL}","messages":[{"role":"user","content":"hi"}],"pad":"`;
  socket.write(
    `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n${Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join("")}content-length: ${declared}\r\n\r\n`,
  );
  socket.write(head + "x".repeat(Math.max(0, sent - head.length)));
  return {
    answer,
    /** Sends the rest of the declared body (a valid JSON chat request). */
    finish() {
      const rest = declared - sent;
      socket.write(`${"x".repeat(rest - 2)}"}`);
    },
    close: () => socket.destroy(),
  };
}

describe("the relay door before the body", () => {
  let mock: OpenAIMock;
  beforeAll(async () => {
    mock = await startOpenAIMock();
    await clearRelayData();
    await seedChannel({ base_url: mock.url, models: MODEL });
  });
  afterAll(async () => {
    await mock.close();
  });

  describe("checks the key from the headers", () => {
    let relay: RelayProcess;
    beforeAll(async () => {
      relay = await startRelayProcess({});
    });
    afterAll(async () => {
      await relay.stop();
    });
    const port = () => Number(new URL(relay.url).port);

    it("answers a bogus key 401 in each caller's shape while its 60 MB body is still on the way", async () => {
      const openai = pausedUpload(port(), "/v1/chat/completions", { authorization: `Bearer ${BOGUS}` }, BIG, 64 * 1024);
      const res = await openai.answer;
      openai.close();
      expect(res.status).toBe(401);
      expect(JSON.parse(res.body).error).toMatchObject({ code: "invalid_api_key", type: "new_api_error" });

      const anthropic = pausedUpload(port(), "/v1/messages", { "x-api-key": BOGUS, "anthropic-version": "2023-06-01" }, BIG, 64 * 1024);
      const a = await anthropic.answer;
      anthropic.close();
      expect(a.status).toBe(401);
      expect(JSON.parse(a.body)).toMatchObject({ type: "error", error: { type: "authentication_error" } });

      const gemini = pausedUpload(port(), `/v1beta/models/${MODEL}:generateContent?key=${BOGUS.slice(3)}`, {}, BIG, 64 * 1024);
      const g = await gemini.answer;
      gemini.close();
      expect(g.status).toBe(401);
      expect(JSON.parse(g.body)).toMatchObject({ error: { code: 401, status: "UNAUTHENTICATED" } });
      expect(mock.requests).toHaveLength(0);
    });

    it("answers a disabled key 401 before its body, and the official client reads that 401 while sending 60 MB", async () => {
      const user = await seedUser();
      await (await getDb()).token.update({ where: { id: user.tokenId }, data: { status: TOKEN_STATUS.disabled } });
      const paused = pausedUpload(port(), "/v1/chat/completions", { authorization: `Bearer ${user.key}` }, BIG, 64 * 1024);
      const res = await paused.answer;
      paused.close();
      expect(res.status).toBe(401);
      expect(JSON.parse(res.body).error.message).toContain("该令牌状态不可用");

      const client = new OpenAI({ apiKey: BOGUS, baseURL: `${relay.url}/v1`, maxRetries: 0 });
      const call = client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "x".repeat(BIG) }] });
      await expect(call).rejects.toMatchObject({ status: 401, constructor: OpenAI.AuthenticationError });
      expect(mock.requests).toHaveLength(0);
    });

    it("logs one line, no stack, for a client that cuts its upload off, and answers the next call", async () => {
      const user = await seedUser();
      const cut = pausedUpload(port(), "/v1/chat/completions", { authorization: `Bearer ${user.key}` }, 1024 * 1024, 100 * 1024);
      await new Promise((r) => setTimeout(r, 200)); // the first 100 KB arrive
      cut.close();
      await expect.poll(() => relay.output()).toMatch(/"bytesRead":\d+,"declared":1048576,"msg":"the client left during its body"/);
      expect(relay.output()).not.toMatch(/\n\s+at /);
      const client = new OpenAI({ apiKey: user.key, baseURL: `${relay.url}/v1`, maxRetries: 0 });
      const done = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "hi" }] });
      expect(done.choices[0]!.message.content).toBeTruthy();
    });
  });

  it("answers a bogus key 401 before the body through the route-handler entry too", async () => {
    const relay = await startRelay("web");
    try {
      const paused = pausedUpload(relay.port, "/v1/messages", { "x-api-key": BOGUS, "anthropic-version": "2023-06-01" }, BIG, 64 * 1024);
      const res = await paused.answer;
      paused.close();
      expect(res.status).toBe(401);
      expect(JSON.parse(res.body)).toMatchObject({ type: "error", error: { type: "authentication_error" } });
    } finally {
      await relay.close();
    }
  });

  describe("caps the bytes of bodies in flight per process", () => {
    let relay: RelayProcess;
    beforeAll(async () => {
      relay = await startRelayProcess({ RELAY_BODY_BYTES_IN_FLIGHT: String(1024 * 1024) });
    });
    afterAll(async () => {
      await relay.stop();
    });
    const port = () => Number(new URL(relay.url).port);

    it("answers 503 with retry-after in OpenAI's and Anthropic's shapes past the cap, and serves again once it frees", async () => {
      mock.reset();
      const user = await seedUser();
      const before = await user.quota();
      const auth = { authorization: `Bearer ${user.key}` };
      // 800 KB in flight (admitted whole from its Content-Length), paused mid-body.
      const first = pausedUpload(port(), "/v1/chat/completions", auth, 800 * 1024, 64 * 1024);

      const openai = pausedUpload(port(), "/v1/chat/completions", auth, 400 * 1024, 1024);
      const o = await openai.answer;
      openai.close();
      expect(o.status).toBe(503);
      expect(o.headers["retry-after"]).toBe("2");
      expect(JSON.parse(o.body).error).toMatchObject({ code: "body_budget_full", type: "server_busy" });

      const anthropic = pausedUpload(
        port(),
        "/v1/messages",
        { "x-api-key": user.key, "anthropic-version": "2023-06-01" },
        400 * 1024,
        1024,
      );
      const a = await anthropic.answer;
      anthropic.close();
      expect(a.status).toBe(503);
      expect(a.headers["retry-after"]).toBe("2");
      expect(JSON.parse(a.body)).toMatchObject({ type: "error", error: { type: "overloaded_error" } });
      expect(mock.requests).toHaveLength(0);
      expect(await user.quota()).toBe(before);

      // The first body completes and is served; its bytes return to the budget.
      first.finish();
      expect((await first.answer).status).toBe(200);
      first.close();
      const again = pausedUpload(port(), "/v1/chat/completions", auth, 400 * 1024, 1024);
      again.finish();
      expect((await again.answer).status).toBe(200);
      again.close();
    });
  });
});
