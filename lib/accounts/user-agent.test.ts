import { describe, expect, it } from "vitest";
import { describeUserAgent, UNKNOWN_DEVICE } from "@/lib/accounts/user-agent";

// Real User-Agent strings of current releases.
const UA = {
  chromeMac: "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  chromeWindows: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  chromeAndroid: "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
  chromeIphone:
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1",
  headlessLinux: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36",
  safariIphone:
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Mobile/15E148 Safari/604.1",
  safariMac: "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15",
  safariIpad:
    "Mozilla/5.0 (iPad; CPU OS 17_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Mobile/15E148 Safari/604.1",
  edgeWindows:
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
  operaMac:
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36 OPR/115.0.0.0",
  firefoxLinux: "Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
  firefoxWindows: "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0",
  wechatAndroid:
    "Mozilla/5.0 (Linux; Android 13; V2148A Build/TP1A.220624.014; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/116.0.0.0 Mobile Safari/537.36 XWEB/1160065 MMWEBSDK/20231202 MicroMessenger/8.0.47.2560(0x28002F30) WeChat/arm64 Weixin NetType/WIFI Language/zh_CN ABI/arm64",
  samsung:
    "Mozilla/5.0 (Linux; Android 14; SAMSUNG SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36",
  chromebook: "Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  iosAppWebView: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148",
};

describe("describeUserAgent", () => {
  it("names the browser and the system of the common browsers", () => {
    expect(describeUserAgent(UA.chromeMac)).toBe("Chrome · macOS");
    expect(describeUserAgent(UA.chromeWindows)).toBe("Chrome · Windows");
    expect(describeUserAgent(UA.chromeAndroid)).toBe("Chrome · Android");
    expect(describeUserAgent(UA.chromeIphone)).toBe("Chrome · iPhone");
    expect(describeUserAgent(UA.headlessLinux)).toBe("Chrome · Linux");
    expect(describeUserAgent(UA.safariIphone)).toBe("Safari · iPhone");
    expect(describeUserAgent(UA.safariMac)).toBe("Safari · macOS");
    expect(describeUserAgent(UA.safariIpad)).toBe("Safari · iPad");
    expect(describeUserAgent(UA.firefoxLinux)).toBe("Firefox · Linux");
    expect(describeUserAgent(UA.firefoxWindows)).toBe("Firefox · Windows");
    expect(describeUserAgent(UA.chromebook)).toBe("Chrome · ChromeOS");
  });

  it("tells a browser from the ones it claims to be", () => {
    expect(describeUserAgent(UA.edgeWindows)).toBe("Edge · Windows");
    expect(describeUserAgent(UA.operaMac)).toBe("Opera · macOS");
    expect(describeUserAgent(UA.samsung)).toBe("Samsung Internet · Android");
    expect(describeUserAgent(UA.wechatAndroid)).toBe("微信 · Android");
    expect(describeUserAgent(UA.iosAppWebView)).toBe("Safari · iPhone");
  });

  it("names command-line tools and HTTP libraries alone", () => {
    expect(describeUserAgent("curl/8.5.0")).toBe("curl");
    expect(describeUserAgent("Wget/1.21.4")).toBe("Wget");
    expect(describeUserAgent("python-requests/2.32.3")).toBe("Python");
    expect(describeUserAgent("python-httpx/0.27.0")).toBe("Python");
    expect(describeUserAgent("Go-http-client/1.1")).toBe("Go");
    expect(describeUserAgent("PostmanRuntime/7.42.0")).toBe("Postman");
    expect(describeUserAgent("node")).toBe("Node.js");
    expect(describeUserAgent("undici")).toBe("Node.js");
    expect(describeUserAgent("okhttp/4.12.0")).toBe("OkHttp");
  });

  it("falls back to another program's product name, or says the device is unknown", () => {
    expect(describeUserAgent("qiao-cli/1.2.0 (+https://example.com)")).toBe("qiao-cli");
    expect(describeUserAgent("qiao-tests")).toBe("qiao-tests");
    expect(describeUserAgent("")).toBe(UNKNOWN_DEVICE);
    expect(describeUserAgent(null)).toBe(UNKNOWN_DEVICE);
    expect(describeUserAgent("   ")).toBe(UNKNOWN_DEVICE);
    expect(describeUserAgent("Mozilla/5.0 (compatible)")).toBe(UNKNOWN_DEVICE);
    expect(describeUserAgent("???")).toBe(UNKNOWN_DEVICE);
  });
});
