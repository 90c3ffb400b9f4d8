// The relay under hostile or broken input (issue 9), through both relay entries: requests that
// can never be valid, upstream answers of the wrong content type, upstream error text carrying
// secrets, and malformed percent-encoding in paths.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { getDb } from "@/lib/db";
import { updateOption } from "@/lib/options";
import { listLogs, listUserLogs, logQuerySchema } from "@/lib/logs/query";
import { startOpenAIMock, type OpenAIMock } from "@/tests/mocks/openai-upstream";
import { clearRelayData, ENTRIES, seedChannel, seedUser, settleAll, startRelay, type RelayServer } from "@/tests/helpers/relay";

const MODEL = "gpt-4o-mini";
const RERANK = "jina-reranker-v2-base-multilingual";
const MODELS = `${MODEL},gpt-3.5-turbo-instruct,text-embedding-3-small,dall-e-3,tts-1,whisper-1,text-moderation-latest`;
const HI = [{ role: "user", content: "hi" }];

function multipart(fields: Record<string, string>, file: boolean): { body: string; contentType: string } {
  const boundary = "----qiaotest";
  let body = "";
  for (const [name, value] of Object.entries(fields)) {
    body += `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  }
  if (file)
    body += `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\nRIFFfake\r\n`;
  return { body: `${body}--${boundary}--\r\n`, contentType: `multipart/form-data; boundary=${boundary}` };
}

for (const entry of ENTRIES) {
  describe(`relay hardening through the ${entry} entry`, () => {
    let mock: OpenAIMock;
    let relay: RelayServer;
    let user: Awaited<ReturnType<typeof seedUser>>;

    const send = (path: string, body: string, headers: Record<string, string> = {}) =>
      fetch(`${relay.url}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${user.key}`, "content-type": "application/json", ...headers },
        body,
      });
    const post = (path: string, json: unknown) => send(path, JSON.stringify(json));
    const logsOf = async (userId: number) => (await getDb()).log.findMany({ where: { user_id: userId }, orderBy: { id: "asc" } });

    beforeAll(async () => {
      mock = await startOpenAIMock();
      relay = await startRelay(entry);
      await updateOption("RetryTimes", "0");
    });
    afterAll(async () => {
      await relay.close();
      await mock.close();
    });
    beforeEach(async () => {
      mock.reset();
      await clearRelayData();
      await seedChannel({ base_url: mock.url, models: MODELS });
      await seedChannel({ base_url: mock.url, type: 38, models: RERANK });
      user = await seedUser();
    });

    describe("requests that can never be valid", () => {
      it("get OpenAI's 400 naming the parameter, before any reservation, upstream call or log row", async () => {
        const before = await user.quota();
        const cases: [string, unknown, string][] = [
          ["/v1/chat/completions", { model: MODEL, messages: "hi" }, "messages"],
          ["/v1/chat/completions", { model: MODEL }, "messages"],
          ["/v1/chat/completions", { model: MODEL, messages: [] }, "messages"],
          ["/v1/chat/completions", { model: MODEL, messages: ["hi"] }, "messages[0]"],
          ["/v1/chat/completions", { model: 42, messages: HI }, "model"],
          ["/v1/chat/completions", { model: "", messages: HI }, "model"],
          ["/v1/chat/completions", { model: MODEL, messages: HI, stream: "yes" }, "stream"],
          ["/v1/chat/completions", { model: MODEL, messages: HI, max_tokens: -5 }, "max_tokens"],
          ["/v1/chat/completions", { model: MODEL, messages: HI, n: 1e308 }, "n"],
          ["/v1/completions", { model: "gpt-3.5-turbo-instruct" }, "prompt"],
          ["/v1/embeddings", { model: "text-embedding-3-small" }, "input"],
          ["/v1/embeddings", { model: "text-embedding-3-small", input: "" }, "input"],
          ["/v1/moderations", { model: "text-moderation-latest", input: 7 }, "input"],
          ["/v1/images/generations", { model: "dall-e-3" }, "prompt"],
          ["/v1/images/generations", { model: ["dall-e-3"], prompt: "a cat" }, "model"],
          ["/v1/images/generations", { model: "dall-e-3", prompt: "a cat", n: 1.5 }, "n"],
          ["/v1/audio/speech", { model: "tts-1", voice: "alloy" }, "input"],
          ["/v1/rerank", { model: RERANK, query: "q" }, "documents"],
        ];
        for (const [path, json, param] of cases) {
          const res = await post(path, json);
          const label = `${path} ${JSON.stringify(json)}`;
          expect(res.status, label).toBe(400);
          const { error } = await res.json();
          expect(error, label).toMatchObject({ type: "invalid_request_error", param });
          expect(error.message, label).toMatch(/request id: \w+/);
        }
        const noFile = multipart({ model: "whisper-1" }, false);
        const transcription = await send("/v1/audio/transcriptions", noFile.body, { "content-type": noFile.contentType });
        expect(transcription.status).toBe(400);
        expect((await transcription.json()).error).toMatchObject({ type: "invalid_request_error", param: "file" });

        expect(mock.requests).toHaveLength(0);
        await settleAll();
        expect(await user.quota()).toBe(before);
        expect(await logsOf(user.id)).toEqual([]);
      });

      it("are refused on the playground too, after its session check", async () => {
        const { sessionCookieFor } = await import("@/tests/helpers/api");
        const cookie = await sessionCookieFor(user.id);
        const playground = (headers: Record<string, string>) =>
          fetch(`${relay.url}/pg/chat/completions`, {
            method: "POST",
            headers: { cookie, "content-type": "application/json", ...headers },
            body: JSON.stringify({ model: MODEL, messages: { role: "user", content: "hi" } }),
          });
        expect((await playground({})).status).toBe(401);
        const res = await playground({ "new-api-user": String(user.id) });
        expect(res.status).toBe(400);
        expect((await res.json()).error).toMatchObject({ type: "invalid_request_error", param: "messages" });
        expect(mock.requests).toHaveLength(0);
      });

      it("still pass a valid body with unknown fields to the upstream byte for byte", async () => {
        const raw = `{"model":"${MODEL}", "messages":[{"role":"user","content":"hi"}],"seed":12345678901234567890,"temperature":1.0,"x_vendor":{"a":[1, 2]}}`;
        const res = await send("/v1/chat/completions", raw);
        expect(res.status).toBe(200);
        expect(mock.requests).toHaveLength(1);
        expect(mock.requests[0]!.body).toBe(raw);
        const file = multipart({ model: "whisper-1", response_format: "text" }, true);
        const transcript = await send("/v1/audio/transcriptions", file.body, { "content-type": file.contentType });
        expect(transcript.status).toBe(200);
      });
    });

    describe("content types", () => {
      it("every answer says nosniff: success, stream, error, not found, preflight", async () => {
        const answers = [
          await post("/v1/chat/completions", { model: MODEL, messages: HI }),
          await post("/v1/chat/completions", { model: MODEL, messages: HI, stream: true }),
          await fetch(`${relay.url}/v1/chat/completions`, { method: "POST", body: "{}" }),
          await fetch(`${relay.url}/v1/nothing`, { headers: { authorization: `Bearer ${user.key}` } }),
          await fetch(`${relay.url}/v1/chat/completions`, {
            method: "OPTIONS",
            headers: { origin: "https://app.example", "access-control-request-method": "POST" },
          }),
        ];
        expect(answers.map((r) => r.status)).toEqual([200, 200, 401, 404, 204]);
        for (const res of answers) {
          expect(res.headers.get("x-content-type-options"), String(res.status)).toBe("nosniff");
          await res.arrayBuffer();
        }
        expect(answers[0]!.headers.get("content-type")).toBe("application/json");
        expect(answers[1]!.headers.get("content-type")).toMatch(/^text\/event-stream/);
      });

      it("an upstream's HTML page is a bad gateway, never relayed, and not billed", async () => {
        const page = "<html><body><script>document.title='pwned'</script>Portal</body></html>";
        mock.setBehaviour({ failStatus: 200, failBody: page });
        const before = await user.quota();
        for (const json of [
          { model: MODEL, messages: HI },
          { model: MODEL, messages: HI, stream: true },
        ]) {
          const res = await post("/v1/chat/completions", json);
          expect(res.status).toBe(502);
          expect(res.headers.get("content-type")).toBe("application/json");
          const text = await res.text();
          expect(text).not.toContain("<script>");
          expect(JSON.parse(text).error).toMatchObject({ type: "upstream_error", code: "bad_response_content_type" });
          expect(JSON.parse(text).error.message).toContain("text/html");
        }
        const speech = await post("/v1/audio/speech", { model: "tts-1", voice: "alloy", input: "Hello" });
        expect(speech.status).toBe(502);
        await settleAll();
        expect(await user.quota()).toBe(before);
        const logs = await logsOf(user.id);
        expect(logs.map((l) => l.type)).toEqual([5, 5, 5]);
        expect(logs.every((l) => l.quota === 0n)).toBe(true);
      });

      it("answers with the endpoint's own type whatever the upstream labels it", async () => {
        // A JSON answer labelled text/html is still refused: the label decides what a browser does.
        mock.setBehaviour({ headers: { "Content-Type": "text/html" } });
        expect((await post("/v1/chat/completions", { model: MODEL, messages: HI })).status).toBe(502);
        // A sloppy vendor's text/plain JSON is answered as application/json.
        mock.setBehaviour({ headers: { "Content-Type": "text/plain" } });
        const chat = await post("/v1/chat/completions", { model: MODEL, messages: HI });
        expect(chat.status).toBe(200);
        expect(chat.headers.get("content-type")).toBe("application/json");
        expect((await chat.json()).choices).toHaveLength(1);
        mock.setBehaviour(null);
        const speech = await post("/v1/audio/speech", { model: "tts-1", voice: "alloy", input: "Hello" });
        expect(speech.headers.get("content-type")).toBe("audio/mpeg");
        const file = multipart({ model: "whisper-1", response_format: "text" }, true);
        const transcript = await send("/v1/audio/transcriptions", file.body, { "content-type": file.contentType });
        expect(transcript.headers.get("content-type")).toBe("text/plain; charset=utf-8");
        expect(await transcript.text()).toContain("Kenobi");
      });
    });

    describe("upstream error text", () => {
      const upstreamKey = "sk-live-Zx81pQ7mN2vB5cD9eF3gH6jKa4Ls0Tq";
      const leaky = `Incorrect API key provided: ${upstreamKey}. Manage keys at https://console.gpu-7.internal/keys or ask ops@10.20.30.40:8443`;

      it("reaches the user masked, in the answer and in their log; admins read hosts and URLs, never the key", async () => {
        mock.setBehaviour({ failStatus: 400, failError: { message: leaky } });
        const res = await post("/v1/chat/completions", { model: MODEL, messages: HI });
        expect(res.status).toBe(400);
        const shown: string = (await res.json()).error.message;
        for (const secret of [upstreamKey, "gpu-7.internal", "10.20.30.40", "https://"]) expect(shown).not.toContain(secret);
        expect(shown).toContain("Incorrect API key provided: sk-***. Manage keys at [url] or ask ops@[host]");

        await settleAll();
        const query = logQuerySchema.parse({});
        const own = (await listUserLogs(user.id, query)).items;
        expect(own).toHaveLength(1);
        expect(own[0]!.content).toBe("Incorrect API key provided: sk-***. Manage keys at [url] or ask ops@[host]");
        expect(JSON.stringify(own[0])).not.toContain(upstreamKey);
        const admin = (await listLogs({ ...query, username: user.username })).items;
        expect(admin).toHaveLength(1);
        expect(admin[0]!.content).toBe(own[0]!.content);
        expect(JSON.parse(admin[0]!.other).admin_info.error_message).toBe(leaky.replace(upstreamKey, "sk-***"));
      });

      it("in an error row written unmasked (before this release) reaches the user masked too", async () => {
        const db = await getDb();
        const base = { user_id: user.id, username: user.username, created_at: Math.floor(Date.now() / 1000), other: "{}" };
        await db.log.create({ data: { ...base, type: 5, content: leaky } });
        await db.log.create({ data: { ...base, type: 2, content: "模型倍率 0.08，补全倍率 4.00，分组倍率 1.00" } });
        const query = logQuerySchema.parse({});
        const own = (await listUserLogs(user.id, query)).items;
        expect(own.map((l) => l.content)).toEqual([
          "模型倍率 0.08，补全倍率 4.00，分组倍率 1.00",
          "Incorrect API key provided: sk-***. Manage keys at [url] or ask ops@[host]",
        ]);
        const admin = (await listLogs({ ...query, username: user.username })).items;
        // Admins keep hosts and URLs; the key is masked for them too.
        expect(admin.map((l) => l.content)).toContain(leaky.replace(upstreamKey, "sk-***"));
      });
    });

    describe("percent-encoding in paths", () => {
      it("malformed encoding is the client's 400, not a 500", async () => {
        const auth = { authorization: `Bearer ${user.key}` };
        const model = await fetch(`${relay.url}/v1/models/%E0%A4%A`, { headers: auth });
        expect(model.status).toBe(400);
        expect((await model.json()).error.type).toBe("invalid_request_error");
        const engines = await send("/v1/engines/%E0%A4%A/embeddings", JSON.stringify({ input: "hi" }));
        expect(engines.status).toBe(400);
        expect((await engines.json()).error.type).toBe("invalid_request_error");
        // Well-formed encoding still decodes.
        const encoded = await fetch(`${relay.url}/v1/models/gpt-4o%2Dmini`, { headers: auth });
        expect(encoded.status).toBe(200);
        expect((await encoded.json()).id).toBe(MODEL);
        expect(mock.requests).toHaveLength(0);
      });
    });
  });
}
