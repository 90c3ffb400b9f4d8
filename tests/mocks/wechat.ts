// A wechat-server on 127.0.0.1 (the companion server of new-api's WeChat sign-in): the official
// account's QR code, and `GET /api/wechat/user?code=` answering `{success, message, data: <openid>}`
// to a caller whose Authorization header is the server's token. A code is what the official
// account replies to "验证码": valid 3 minutes on the mock's own clock, which a test moves on
// (`advance`) instead of waiting; an unknown or expired code answers an empty `data`, as
// wechat-server does.
//
//   const wx = await startMockWeChatServer({ token: "wx-token" });
//   const code = wx.issueCode("openid-1");
//   wx.advance(3 * 60_000); // now expired
import http from "node:http";
import type { AddressInfo } from "node:net";
import QRCode from "qrcode";

/** wechat-server's VerificationValidMinutes. */
export const WECHAT_CODE_VALID_MS = 3 * 60_000;

export type WeChatLookup = { code: string; authorization: string | null };

export type MockWeChatServer = {
  url: string;
  /** The official account's QR code image. */
  qrcodeUrl: string;
  /** The code the official account would reply to `openId` now. */
  issueCode(openId: string): string;
  /** Moves the mock's clock `ms` ahead. */
  advance(ms: number): void;
  /** Every code lookup, in order. */
  lookups: WeChatLookup[];
  close(): Promise<void>;
};

function send(res: http.ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

export async function startMockWeChatServer(options: { token: string }): Promise<MockWeChatServer> {
  const codes = new Map<string, { openId: string; issuedAt: number }>();
  const lookups: WeChatLookup[] = [];
  let offset = 0;
  let next = 100_000 + Math.floor(Math.random() * 800_000);
  const now = () => Date.now() + offset;
  const qrcode = await QRCode.toBuffer("https://mp.weixin.qq.com/qiao-mock-official-account", { width: 240, margin: 1 });

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://mock");
    if (req.method === "GET" && url.pathname === "/qrcode.png") {
      res.writeHead(200, { "content-type": "image/png", "content-length": qrcode.length });
      res.end(qrcode);
      return;
    }
    if (req.method === "GET" && url.pathname === "/api/wechat/user") {
      const code = url.searchParams.get("code") ?? "";
      const authorization = req.headers.authorization ?? null;
      lookups.push({ code, authorization });
      if (authorization !== options.token) {
        send(res, 200, { success: false, message: "无权进行此操作，未登录或 token 无效" });
        return;
      }
      if (!code) {
        send(res, 200, { success: false, message: "无效的参数" });
        return;
      }
      const issued = codes.get(code);
      const fresh = issued && now() - issued.issuedAt < WECHAT_CODE_VALID_MS;
      send(res, 200, { success: true, message: "", data: fresh ? issued.openId : "" });
      return;
    }
    send(res, 404, { success: false, message: "not found" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    qrcodeUrl: `${url}/qrcode.png`,
    issueCode(openId) {
      const code = String(next++);
      codes.set(code, { openId, issuedAt: now() });
      return code;
    },
    advance(ms) {
      offset += ms;
    },
    lookups,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
