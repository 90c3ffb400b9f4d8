// A loopback stand-in for Zhipu's open.bigmodel.cn: v4 (OpenAI-shaped chat, whole and streamed)
// and v3 (invoke / sse-invoke, recorded fixtures). Every call's JWT is verified with jose against
// the test key's secret; a bad one gets Zhipu's 401.
import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { jwtVerify } from "jose";

const FIXTURES = path.join(__dirname, "../../lib/relay/providers/zhipu/__fixtures__");
const fixture = (name: string) => readFileSync(path.join(FIXTURES, name), "utf8");

export const ZHIPU_KEY = { id: "zp-id-1", secret: "zp-secret-0123456789" };
/** The v4 answer's text and usage. */
export const ZHIPU_V4_TEXT = "你好，我是智谱清言。";
export const ZHIPU_V4_USAGE = { prompt_tokens: 7, completion_tokens: 5, total_tokens: 12 };

export interface ZhipuMock {
  url: string;
  requests: { path: string; authorization: string; body: Record<string, unknown> }[];
  reset(): void;
  close(): Promise<void>;
}

async function tokenOk(auth: string, bearer: boolean): Promise<boolean> {
  if (bearer !== auth.startsWith("Bearer ")) return false;
  try {
    const { payload } = await jwtVerify(auth.replace(/^Bearer /, ""), new TextEncoder().encode(ZHIPU_KEY.secret), {
      algorithms: ["HS256"],
    });
    return payload.api_key === ZHIPU_KEY.id && typeof payload.timestamp === "number" && (payload.exp as number) > Date.now();
  } catch {
    return false;
  }
}

function v4Chunks(model: string): string {
  const base = { id: "8311236947413063419", created: 1718000000, model };
  const ev = (o: object) => `data: ${JSON.stringify({ ...base, ...o })}\n\n`;
  return (
    ev({ choices: [{ index: 0, delta: { role: "assistant", content: "你好，" } }] }) +
    ev({ choices: [{ index: 0, delta: { role: "assistant", content: "我是智谱清言。" } }] }) +
    ev({ choices: [{ index: 0, finish_reason: "stop", delta: { role: "assistant", content: "" } }], usage: ZHIPU_V4_USAGE }) +
    "data: [DONE]\n\n"
  );
}

export async function startZhipuMock(): Promise<ZhipuMock> {
  const mock: ZhipuMock = {
    url: "",
    requests: [],
    reset() {
      this.requests = [];
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const p = (req.url ?? "/").split("?")[0]!;
      const auth = String(req.headers.authorization ?? "");
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as Record<string, unknown>;
      mock.requests.push({ path: p, authorization: auth, body });
      const send = (status: number, type: string, text: string) => {
        res.writeHead(status, { "content-type": type });
        res.end(text);
      };
      const v4 = p.startsWith("/api/paas/v4/");
      if (!(await tokenOk(auth, v4))) {
        return send(
          401,
          "application/json",
          JSON.stringify({ error: { code: "1002", message: "Authorization Token非法，请确认Authorization Token正确传递。" } }),
        );
      }
      if (p === "/api/paas/v4/chat/completions") {
        const model = String(body.model);
        if (model === "glm-missing") return send(400, "application/json", fixture("v4-error.json"));
        if (body.stream === true) return send(200, "text/event-stream;charset=UTF-8", v4Chunks(model));
        return send(
          200,
          "application/json",
          JSON.stringify({
            id: "8311236947413063418",
            created: 1718000000,
            model,
            request_id: "8311236947413063418",
            choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: ZHIPU_V4_TEXT } }],
            usage: ZHIPU_V4_USAGE,
          }),
        );
      }
      const v3 = /^\/api\/paas\/v3\/model-api\/([^/]+)\/(invoke|sse-invoke)$/.exec(p);
      if (v3) {
        if (v3[1] === "chatglm_missing") return send(200, "application/json", fixture("v3-error.json"));
        if (v3[2] === "sse-invoke") return send(200, "text/event-stream;charset=UTF-8", fixture("v3-sse.txt"));
        return send(200, "application/json", fixture("v3-invoke.json"));
      }
      send(404, "application/json", JSON.stringify({ error: { code: "404", message: "Not Found" } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  mock.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return mock;
}
