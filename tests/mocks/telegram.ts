// Telegram's side of the Login Widget, for tests. `signTelegramFields` signs an account's fields as
// Telegram does (hex HMAC-SHA256 keyed with SHA-256 of the bot token, over the sorted `key=value`
// lines), written here apart from the product's check so a test's hash is Telegram's, not ours.
// `startMockTelegramWidget` serves a stand-in for telegram-widget.js on 127.0.0.1 (the real one
// cannot load offline): like the real script it reads its own element's data-telegram-login,
// data-size and data-auth-url and puts its button, the size of the real widget's frame, just before
// that element; a click sends the browser to the auth URL with the fields of the account the test
// chose, signed when the script was served.
import { createHash, createHmac } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

export type TelegramFields = Record<string, string | number>;

/** The fields plus Telegram's `hash` of them. */
export function signTelegramFields(botToken: string, fields: TelegramFields): Record<string, string> {
  const entries = Object.entries(fields).map(([key, value]) => [key, String(value)] as const);
  const checkString = entries
    .map(([key, value]) => `${key}=${value}`)
    .sort()
    .join("\n");
  const secret = createHash("sha256").update(botToken).digest();
  const hash = createHmac("sha256", secret).update(checkString).digest("hex");
  return { ...Object.fromEntries(entries), hash };
}

/** An account's fields as the widget gives them, signed now (or at `authDate`). */
export function telegramLogin(botToken: string, account: TelegramFields, authDate = Math.floor(Date.now() / 1000)) {
  return signTelegramFields(botToken, { ...account, auth_date: authDate });
}

export type MockTelegramWidget = {
  scriptUrl: string;
  /** The account the next click signs in as (null: the button does nothing). */
  setAccount(account: TelegramFields | null): void;
  /** How many times the script was served. */
  served(): number;
  close(): Promise<void>;
};

function widgetScript(fields: Record<string, string> | null): string {
  return `(function () {
  var el = document.currentScript;
  var bot = el.getAttribute("data-telegram-login");
  var authUrl = el.getAttribute("data-auth-url");
  var user = ${JSON.stringify(fields)};
  // The real widget's frame sizes.
  var size = { small: [148, 20, 11], medium: [186, 28, 13], large: [238, 40, 15] }[el.getAttribute("data-size")] || [186, 28, 13];
  var button = document.createElement("button");
  button.type = "button";
  button.textContent = "Log in with Telegram";
  button.title = "@" + bot;
  // The real widget is a frame; this button is the mock's, outside React (tests/e2e/support.ts
  // does not wait for it to hydrate).
  button.setAttribute("data-outside-react", "");
  button.style.cssText = "background:#54a9eb;color:#fff;border:0;cursor:pointer;white-space:nowrap;overflow:hidden;padding:0;" +
    "width:" + size[0] + "px;height:" + size[1] + "px;border-radius:" + size[1] / 2 + "px;font:500 " + size[2] + "px sans-serif";
  button.onclick = function () {
    if (!user) return;
    var a = document.createElement("a");
    a.href = authUrl;
    var params = [];
    for (var key in user) params.push(key + "=" + encodeURIComponent(user[key]));
    location.href = a.href + (a.href.indexOf("?") >= 0 ? "&" : "?") + params.join("&");
  };
  el.parentNode.insertBefore(button, el);
})();
`;
}

export async function startMockTelegramWidget(options: { botToken: string }): Promise<MockTelegramWidget> {
  let account: TelegramFields | null = null;
  let served = 0;
  const server = http.createServer((req, res) => {
    if (req.method !== "GET" || !req.url?.startsWith("/js/telegram-widget.js")) {
      res.writeHead(404).end();
      return;
    }
    served++;
    const body = widgetScript(account ? telegramLogin(options.botToken, account) : null);
    res.writeHead(200, { "content-type": "text/javascript; charset=utf-8", "cache-control": "no-store" });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    scriptUrl: `http://127.0.0.1:${port}/js/telegram-widget.js?22`,
    setAccount(next) {
      account = next;
    },
    served: () => served,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
