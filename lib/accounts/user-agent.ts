// A session's device as a person would name it, read from the User-Agent it signed in with:
// "Chrome · macOS", "Safari · iPhone", "curl". Only the browser and the system are told apart;
// versions change weekly and say nothing to someone deciding whether a session is theirs. A few
// rules in order, not a full parser (no dependency): each browser's token is checked before those
// it pretends to be (Edge and Opera say Chrome, Chrome says Safari).

/** What a User-Agent no rule recognises (or an empty one) is shown as. */
export const UNKNOWN_DEVICE = "未知设备";

const BROWSERS: [RegExp, string][] = [
  [/MicroMessenger\//, "微信"],
  [/\bEdg(e|A|iOS)?\//, "Edge"],
  [/\b(OPR|Opera)\//, "Opera"],
  [/SamsungBrowser\//, "Samsung Internet"],
  [/\b(Firefox|FxiOS)\//, "Firefox"],
  [/\b(HeadlessChrome|Chrome|Chromium|CriOS)\//, "Chrome"],
  [/\bVersion\/[\d.]+.*\bSafari\//, "Safari"],
  // An iOS web view (an app's in-app browser) is Safari's engine without Safari's token.
  [/\b(iPhone|iPad)\b.*AppleWebKit\//, "Safari"],
];

const SYSTEMS: [RegExp, string][] = [
  [/\biPhone\b/, "iPhone"],
  [/\biPad\b/, "iPad"],
  [/\bHarmonyOS\b|\bOpenHarmony\b/, "HarmonyOS"],
  [/\bAndroid\b/, "Android"],
  [/\bWindows\b/, "Windows"],
  [/\bCrOS\b/, "ChromeOS"],
  [/\bMac OS X\b|\bMacintosh\b/, "macOS"],
  [/\bLinux\b|\bX11\b/, "Linux"],
];

/** Command-line tools and HTTP libraries: their name alone says enough. */
const CLIENTS: [RegExp, string][] = [
  [/^curl\//i, "curl"],
  [/^Wget\//i, "Wget"],
  [/^PostmanRuntime\//, "Postman"],
  [/^python-requests\/|^python-httpx\/|^aiohttp\/|^Python-urllib\//i, "Python"],
  [/^Go-http-client\//, "Go"],
  [/^okhttp\//i, "OkHttp"],
  [/^(node-fetch|undici|axios)\b|^node$/i, "Node.js"],
];

const first = (rules: [RegExp, string][], ua: string) => rules.find(([pattern]) => pattern.test(ua))?.[1];

/** "Browser · System", one of them when the other is unknown, a tool's name, or UNKNOWN_DEVICE. */
export function describeUserAgent(userAgent: string | null | undefined): string {
  const ua = (userAgent ?? "").trim();
  if (!ua) return UNKNOWN_DEVICE;
  const client = first(CLIENTS, ua);
  if (client) return client;
  const browser = first(BROWSERS, ua);
  const system = first(SYSTEMS, ua);
  if (browser && system) return `${browser} · ${system}`;
  if (browser || system) return (browser ?? system)!;
  // Another program: its product token ("qiao-cli/1.2" → "qiao-cli", or a bare name), unless it
  // is the "Mozilla/5.0" every browser starts with.
  const product = /^([A-Za-z][\w.-]{0,39})(?:\/|$)/.exec(ua)?.[1];
  return product && product !== "Mozilla" ? product : UNKNOWN_DEVICE;
}
